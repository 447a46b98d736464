import { Type } from '@sinclair/typebox';
import { BadRequest } from '../../http/errors.js';

/**
 * A participant's id names media streams (`media/<user_id>/cam`) and is a path segment of the API
 * (`/v1/sessions/{id}/participants/{user_id}`): no "/", no white space or control character, and
 * not "." or "..", which URL normalisation would turn into another path.
 */
export const USER_ID_PATTERN = '^(?!\\.\\.?$)[^/\\s\\u0000-\\u001f\\u007f]+$';
/** The longest user_id. */
export const USER_ID_MAX = 128;
/** The same rule as a regular expression, for the checks made outside a route's schema. */
export const USER_ID = new RegExp(USER_ID_PATTERN, 'u');

/** Whether `s` may be a participant's id. */
export const isUserId = (s: string): boolean => [...s].length <= USER_ID_MAX && USER_ID.test(s);

const userIdSchema = (description: string) =>
  Type.String({ minLength: 1, maxLength: USER_ID_MAX, pattern: USER_ID_PATTERN, description });

export const UserId = userIdSchema(
  'the participant; 1 to 128 characters, no "/", white space or control character, and not "." or ".." (it names media streams and is a path segment of the API)',
);

/**
 * The longest display name, in characters as a person counts them (grapheme clusters: a family
 * emoji or a letter with its accents is one) once trimmed.
 */
export const DISPLAY_NAME_MAX = 64;
/** The most UTF-16 units a request's display name may carry before it is even looked at. */
const DISPLAY_NAME_RAW_MAX = 1024;
const DISPLAY_NAME_RULE = `1 to ${DISPLAY_NAME_MAX} characters of any script once trimmed, at least one of them visible; spaces allowed, no control character`;
// Any control character (C0, DEL and C1), and the line and paragraph separators.
const NOT_A_NAME = /[\p{Cc}\u2028\u2029]/u;
/**
 * A character that draws something: not a space, not a format or otherwise invisible character
 * (zero-width spaces and joiners, U+2060, U+FEFF, the soft hyphen, bidirectional controls, tags,
 * variation selectors, the Hangul fillers), not a blank Braille pattern, and not a combining mark,
 * which only draws on a character before it.
 */
const VISIBLE = /[^\p{White_Space}\p{Z}\p{Cc}\p{Cf}\p{Cs}\p{M}\p{Default_Ignorable_Code_Point}\u2800]/u;
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** How many characters a person sees in `s` (grapheme clusters). */
export const graphemeCount = (s: string): number => {
  let n = 0;
  for (const _ of graphemes.segment(s)) n++;
  return n;
};

/** The name a person is shown by, as requests carry it (the length is checked after trimming). */
export const DisplayName = Type.String({
  maxLength: DISPLAY_NAME_RAW_MAX,
  description: `the name shown for the participant: ${DISPLAY_NAME_RULE}; a character is what a person counts as one (a family emoji, a letter with its accents), and the request carries at most ${DISPLAY_NAME_RAW_MAX} UTF-16 units (e.g. "Ana María", "山田 太郎")`,
});

/**
 * A display name trimmed and checked, or the refusal naming `field`. Checked here rather than by
 * the schema: the length counts what is left once trimmed, in grapheme clusters rather than code
 * points or UTF-16 units, and a name must draw at least one visible character.
 */
export function displayName(raw: string, field: string): string {
  const name = raw.trim();
  const length = graphemeCount(name);
  if (length === 0 || length > DISPLAY_NAME_MAX || NOT_A_NAME.test(name) || !VISIBLE.test(name))
    throw new BadRequest(`${field} must be ${DISPLAY_NAME_RULE}`);
  return name;
}

export const ConnectionRequest = Type.Object(
  {
    user_id: Type.Optional(
      userIdSchema(
        'the participant; 1 to 128 characters, no "/", white space or control character, and not "." or "..". Required with a key. Never begins with `guest-` (the ids of join links\' guests). A restricted key mints only ids beginning with `app-` (its app\'s own users). With the dashboard cookie the token is always for the member\'s own account: leave it out, or give that id',
      ),
    ),
    display_name: Type.Optional(DisplayName),
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
  { additionalProperties: false, title: 'ConnectionRequest' },
);

export const ParticipantParams = Type.Object({
  sessionId: Type.String({ format: 'uuid' }),
  userId: UserId,
});

export const Removed = Type.Object(
  { session_id: Type.String(), user_id: Type.String(), removed: Type.Literal(true) },
  { title: 'RemovedParticipant' },
);

export const ConnectionToken = Type.Object(
  {
    access_token: Type.String({ description: 'JWT for /ws, valid 300 seconds' }),
    expires_in: Type.Integer({ description: 'seconds until expiry: 300' }),
    session: Type.String(),
    user_id: Type.String({
      description: "the participant the token is for (with the dashboard cookie: the member's account id)",
    }),
  },
  { title: 'ConnectionToken' },
);

/** The query of the upgrade, read by the gateway itself (the route has no querystring schema). */
export const LiveQuery = Type.Object({
  session: Type.String({ format: 'uuid', description: 'the session id the token was issued for' }),
  access_token: Type.String({ description: 'from `createConnectionToken`; valid 300 s' }),
  user_id: userIdSchema("the token's `user_id`, under the same rule"),
  format: Type.Optional(
    Type.String({
      enum: ['json', 'binary'],
      default: 'json',
      description: '`binary`: media arrives as binary frames instead of base64 in JSON',
    }),
  ),
});
