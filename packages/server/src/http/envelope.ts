import { Type, type TSchema } from '@sinclair/typebox';

/** The error object of every failed response. */
export const ErrorBody = Type.Object(
  {
    code: Type.String({ description: 'stable machine-readable code, e.g. BAD_REQUEST' }),
    message: Type.String({ description: 'human-readable; names the offending field where there is one' }),
  },
  { additionalProperties: false },
);

/** `{ data: null, error }`: the shape of every failure. */
export const ErrorEnvelope = Type.Object(
  { data: Type.Null(), error: ErrorBody },
  { description: 'Every failure: data is null, error names the problem.' },
);

/** `{ data, error: null }` around a success schema. */
export function envelope<T extends TSchema>(data: T) {
  return Type.Object({ data, error: Type.Null() });
}

/** Wraps a result in the success envelope. */
export function ok<T>(data: T): { data: T; error: null } {
  return { data, error: null };
}
