import type { Schemas } from '@vss/client';

/** A key as listed (an API key and a restricted key read alike); `prefix`: its secret's first 12 characters. */
export type KeyRecord = Schemas['ApiKey'] | Schemas['RestrictedKey'];

/** The answer of a create: the only time the secret is shown. */
export type CreatedKey = Schemas['CreatedApiKey'] | Schemas['CreatedRestrictedKey'];
