import { Type } from '@sinclair/typebox';
import { Nullable } from '../../http/schema-types.js';

const Timestamp = Type.String({ format: 'date-time' });
const MaybeTimestamp = Nullable(Timestamp);

export const Session = Type.Object(
  {
    id: Type.String(),
    project_id: Type.String(),
    name: Type.String(),
    created_by: Type.String({
      description:
        '"api_key" for an API key, "restricted_key" for a restricted key, the user id for a dashboard user',
    }),
    started_at: MaybeTimestamp,
    ended_at: MaybeTimestamp,
    created_at: Timestamp,
    is_public: Type.Boolean(),
  },
  { title: 'Session' },
);

export const PublicSession = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    created_at: Timestamp,
    started_at: MaybeTimestamp,
    ended_at: MaybeTimestamp,
  },
  { title: 'PublicSession' },
);

export const CreateSession = Type.Object(
  { name: Type.Optional(Type.String({ maxLength: 200, description: 'at most 200 characters; default ""' })) },
  { additionalProperties: false, title: 'CreateSessionRequest' },
);

export const Visibility = Type.Object(
  { is_public: Type.Boolean() },
  { additionalProperties: false, title: 'SetVisibilityRequest' },
);

export const ProjectSessionParams = Type.Object({
  projectId: Type.String({ format: 'uuid' }),
  sessionId: Type.String({ format: 'uuid' }),
});
