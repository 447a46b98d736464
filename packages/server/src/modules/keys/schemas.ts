import { Type } from '@sinclair/typebox';
import { Nullable } from '../../http/schema-types.js';

const Label = Nullable(Type.String({ minLength: 1, maxLength: 200 }), {
  description: 'free text to recognise the key by, 1 to 200 characters, or null',
});

const keyFields = {
  id: Type.String(),
  project_id: Type.String(),
  label: Nullable(Type.String()),
  prefix: Type.String({ description: 'the first 12 characters of the secret, for recognition' }),
  created_at: Type.String({ format: 'date-time' }),
  last_used_at: Nullable(Type.String({ format: 'date-time' }), {
    description: 'updated at most once a minute',
  }),
};

/** The two kinds share one shape; each has its own name in the OpenAPI document. */
export const ApiKey = Type.Object(keyFields, { title: 'ApiKey' });
export const RestrictedKey = Type.Object(keyFields, { title: 'RestrictedKey' });
export const CreatedApiKey = Type.Object(
  { ...keyFields, secret: Type.String({ description: 'shown once, never again: `sk_live_…`' }) },
  { title: 'CreatedApiKey' },
);
export const CreatedRestrictedKey = Type.Object(
  { ...keyFields, secret: Type.String({ description: 'shown once, never again: `rk_live_…`' }) },
  { title: 'CreatedRestrictedKey' },
);

export const CreateApiKey = Type.Object(
  { label: Type.Optional(Label) },
  { additionalProperties: false, title: 'CreateApiKeyRequest' },
);
export const CreateRestrictedKey = Type.Object(
  {
    project_id: Type.Optional(
      Type.String({ format: 'uuid', description: "defaults to the caller's project" }),
    ),
    label: Type.Optional(Label),
  },
  { additionalProperties: false, title: 'CreateRestrictedKeyRequest' },
);
export const Relabel = Type.Object(
  { label: Label },
  { additionalProperties: false, title: 'RelabelKeyRequest' },
);
export const KeyParams = Type.Object({ keyId: Type.String({ format: 'uuid' }) });
export const KeyListQuery = Type.Object({
  project_id: Type.Optional(Type.String({ format: 'uuid', description: 'only the keys of this project' })),
});
