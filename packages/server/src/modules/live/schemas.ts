import { Type } from '@sinclair/typebox';

export const UserId = Type.String({
  minLength: 1,
  maxLength: 128,
  pattern: '^[^/\\s]+$',
  description: 'the participant; 1 to 128 characters, no "/" or spaces (it names media streams)',
});

export const ConnectionRequest = Type.Object(
  {
    user_id: UserId,
    replay: Type.Optional(Type.Boolean({ description: 'true for replay mode; omitted or false for live' })),
    from_ts: Type.Optional(Type.Integer({ minimum: 0, description: 'replay start, ms since 1970' })),
    speed: Type.Optional(
      Type.Number({ minimum: 0.25, maximum: 16, description: 'replay speed, 0.25 to 16 (default 1)' }),
    ),
    focus: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 300,
        description: "replay only this stream (e.g. media/u1/cam) or this user's media",
      }),
    ),
  },
  { additionalProperties: false },
);

export const ConnectionToken = Type.Object({
  access_token: Type.String({ description: 'JWT for /ws, valid 300 seconds' }),
  expires_in: Type.Integer({ description: 'seconds until expiry: 300' }),
  session: Type.String(),
});
