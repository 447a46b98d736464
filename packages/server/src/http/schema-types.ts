import { Type, type Static, type TSchema, type TUnsafe } from '@sinclair/typebox';

/** A string that is one of `values` (a JSON Schema `enum`: one clear error, one clear OpenAPI entry). */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: { description?: string } = {},
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/** Like StringEnum, or null. */
export function NullableStringEnum<const T extends readonly string[]>(
  values: T,
  options: { description?: string } = {},
): TUnsafe<T[number] | null> {
  return Type.Unsafe<T[number] | null>({ type: ['string', 'null'], enum: [...values, null], ...options });
}

/**
 * A string, integer, number or boolean schema that also admits null, as `type: [T, 'null']`
 * rather than `anyOf`: the serialiser writes it directly instead of validating to pick a branch.
 */
export function Nullable<T extends TSchema>(
  schema: T,
  options: { description?: string } = {},
): TUnsafe<Static<T> | null> {
  const { type, ...rest } = schema as unknown as { type: string } & Record<string, unknown>;
  return Type.Unsafe<Static<T> | null>({ ...rest, ...options, type: [type, 'null'] });
}
