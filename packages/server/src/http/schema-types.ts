import { Type, type TUnsafe } from '@sinclair/typebox';

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
