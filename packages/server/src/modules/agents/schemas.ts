import { Type } from '@sinclair/typebox';
import { Nullable } from '../../http/schema-types.js';

const tokenFields = {
  id: Type.String(),
  project_id: Type.String(),
  label: Nullable(Type.String()),
  scopes: Type.Array(Type.String(), { description: '`mcp:read`, `mcp:write`' }),
  prefix: Type.String({ description: 'the first 12 characters of the secret, for recognition' }),
  created_at: Type.String({ format: 'date-time' }),
  expires_at: Nullable(Type.String({ format: 'date-time' })),
  last_used_at: Nullable(Type.String({ format: 'date-time' }), {
    description: 'updated at most once a minute',
  }),
};
export const AgentToken = Type.Object(tokenFields);
export const CreatedAgentToken = Type.Object({
  ...tokenFields,
  secret: Type.String({ description: 'shown once, never again: `sat_…`' }),
});
export const CreateAgentToken = Type.Object(
  {
    scopes: Type.Array(Type.Union([Type.Literal('mcp:read'), Type.Literal('mcp:write')]), {
      minItems: 1,
      maxItems: 2,
      description: '`mcp:read` (read tools), `mcp:write` (tools that change things); at least one',
    }),
    project_id: Type.Optional(
      Type.String({ format: 'uuid', description: "defaults to the user's first project" }),
    ),
    label: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200 }))),
    expires_in_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 366, description: 'default: never' })),
  },
  { additionalProperties: false },
);
export const TokenParams = Type.Object({ tokenId: Type.String({ format: 'uuid' }) });
export const Activity = Type.Object({
  id: Type.String(),
  actor: Type.String({ description: '`agent_token:<id>` or `oauth:<grant id>`' }),
  tool: Type.String(),
  project_id: Type.String(),
  session_id: Nullable(Type.String()),
  status: Type.String({
    description: '`succeeded`, `failed` (the API refused: see error_code) or `refused` (scope)',
  }),
  error_code: Nullable(Type.String()),
  created_at: Type.String({ format: 'date-time' }),
});
