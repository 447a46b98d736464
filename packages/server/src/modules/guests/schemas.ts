import { Type } from '@sinclair/typebox';
import { DisplayName } from '../live/service.js';

export const CreateJoinLink = Type.Object(
  {
    expires_in_minutes: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 43_200,
        description: '1 to 43200 (30 days); default 1440 (one day)',
      }),
    ),
    max_uses: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 10_000,
        description: 'how many guests may join with it, 1 to 10000; default: no limit until it expires',
      }),
    ),
    can_publish: Type.Optional(
      Type.Boolean({
        description:
          'default true; false: its guests watch and chat, and their camera, microphone, screen and director commands are refused (`FORBIDDEN_STREAM`)',
      }),
    ),
  },
  { additionalProperties: false, title: 'CreateJoinLinkRequest' },
);

const linkFields = {
  id: Type.String({ description: 'names the link to revoke it (`DELETE …/join-links/{linkId}`)' }),
  session_id: Type.String(),
  expires_at: Type.String({ format: 'date-time', description: 'in the past once it has expired' }),
  max_uses: Type.Union([Type.Integer(), Type.Null()], { description: 'null: no limit' }),
  uses: Type.Integer({ description: 'guests who joined with it so far' }),
  can_publish: Type.Boolean(),
  created_at: Type.String({ format: 'date-time' }),
};

/** A join link as listed: never its token, which is kept only hashed. */
export const ListedJoinLink = Type.Object(linkFields, { title: 'ListedJoinLink' });

export const JoinLink = Type.Object(
  {
    ...linkFields,
    url: Type.String({ description: '{base_url}/join/{token}: the page a guest opens' }),
    token: Type.String({ description: 'shown this once: it is stored only as a hash' }),
  },
  { title: 'JoinLink' },
);

export const JoinLinkParams = Type.Object({
  sessionId: Type.String({ format: 'uuid' }),
  linkId: Type.String({ format: 'uuid' }),
});

export const JoinTokenParams = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 200, description: "the join link's token" }),
});

export const JoinLinkInfo = Type.Object(
  {
    session: Type.Object({
      id: Type.String(),
      name: Type.String(),
      ended: Type.Boolean({ description: 'true: nobody can join any more' }),
      is_public: Type.Boolean({ description: 'true: its replay is public (`/watch/{id}`)' }),
    }),
    can_publish: Type.Boolean(),
    expires_at: Type.String({ format: 'date-time' }),
    used_up: Type.Boolean({
      description:
        'true: as many guests have joined with it as it allows, so it lets in only a guest coming back with its `rejoin_token`',
    }),
  },
  { title: 'JoinLinkInfo' },
);

export const JoinRequest = Type.Object(
  {
    display_name: DisplayName,
    rejoin_token: Type.Optional(
      Type.String({
        maxLength: 300,
        description:
          "the `rejoin_token` of this link's earlier answer: the same guest comes back (same `user_id`, no use taken), e.g. to reconnect once its 300-second connection token expired; refused with 403 once the guest was removed",
      }),
    ),
  },
  { additionalProperties: false, title: 'JoinRequest' },
);

export const GuestToken = Type.Object(
  {
    access_token: Type.String({ description: 'JWT for /ws, valid 300 seconds' }),
    expires_in: Type.Integer({ description: 'seconds until expiry: 300' }),
    session: Type.String(),
    user_id: Type.String({
      description: "the guest's new id, `guest-` and random letters and digits: use it as `/ws`'s `user_id`",
    }),
    display_name: Type.String({ description: 'the name as others see it (trimmed)' }),
    can_publish: Type.Boolean(),
    rejoin_token: Type.String({
      description:
        'send it back with `POST /v1/join/{token}` to come back as the same guest (a reconnect, a reload) while the link is valid',
    }),
  },
  { title: 'GuestToken' },
);
