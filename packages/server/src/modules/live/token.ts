import { createHash } from 'node:crypto';
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import { newId } from '../../lib/ids.js';

/** Connection tokens live 300 seconds. */
export const TOKEN_TTL_S = 300;
const LEEWAY_S = 10;

/**
 * The credential a live token was issued with, weakest last: a connection from a restricted key
 * never replaces one from any of the others (see OneConnectionPerUser).
 */
export const CREDENTIALS = ['api_key', 'member', 'guest', 'restricted_key'] as const;
export type Credential = (typeof CREDENTIALS)[number];

/** Whether a connection made with `newer` may replace one made with `older` (null: not known, strong). */
export const mayReplace = (newer: Credential, older: string | null | undefined): boolean =>
  newer !== 'restricted_key' || older === 'restricted_key';

/** What a connection token grants. */
export interface ConnectionClaims {
  sub: string;
  sid: string;
  pid: string;
  mode: 'live' | 'replay';
  from_ts: number | null;
  speed: number;
  focus: string | null;
  /** the name shown for the participant (null: the user_id is shown) */
  display_name: string | null;
  /** false for a watch-and-chat guest: media publishes are refused */
  can_publish: boolean;
  /** what issued it */
  credential: Credential;
  /** the join link a guest's token came from: refused once the link is revoked or expired */
  link: string | null;
}

/** The claims of a verified token, with when it was issued (ms since 1970). */
export interface VerifiedClaims extends ConnectionClaims {
  issued_at: number;
}

/** Signs and checks connection tokens: HS256 pinned, `kid` naming the key, audience `ws`. */
export function connectionTokens(key: Buffer) {
  const kid = createHash('sha256').update(key).digest('hex').slice(0, 16);
  return {
    async issue(claims: ConnectionClaims): Promise<string> {
      return new SignJWT({
        sid: claims.sid,
        pid: claims.pid,
        mode: claims.mode,
        from_ts: claims.from_ts,
        speed: claims.speed,
        focus: claims.focus,
        name: claims.display_name,
        pub: claims.can_publish,
        cred: claims.credential,
        lnk: claims.link,
        // Milliseconds, where `iat` has seconds: a removal refuses the tokens issued before it,
        // and one issued in the same second after it must still be let in.
        iat_ms: Date.now(),
      })
        .setProtectedHeader({ alg: 'HS256', kid, typ: 'JWT' })
        .setSubject(claims.sub)
        .setAudience('ws')
        .setIssuedAt()
        .setExpirationTime(`${TOKEN_TTL_S}s`)
        .setJti(newId())
        .sign(key);
    },
    /** The claims of a valid token, or a reason it is not valid. */
    async verify(token: string): Promise<{ claims: VerifiedClaims } | { problem: string }> {
      try {
        const { payload, protectedHeader } = await jwtVerify(token, key, {
          algorithms: ['HS256'],
          audience: 'ws',
          clockTolerance: LEEWAY_S,
          requiredClaims: ['exp', 'sub', 'sid', 'pid', 'mode'],
        });
        if (protectedHeader.kid !== kid) return { problem: 'the token was signed with another key' };
        const mode = payload.mode === 'replay' ? 'replay' : payload.mode === 'live' ? 'live' : null;
        if (!mode) return { problem: 'the token has no valid mode' };
        return {
          claims: {
            sub: String(payload.sub),
            sid: String(payload.sid),
            pid: String(payload.pid),
            mode,
            from_ts: typeof payload.from_ts === 'number' ? payload.from_ts : null,
            speed: typeof payload.speed === 'number' ? payload.speed : 1,
            focus: typeof payload.focus === 'string' ? payload.focus : null,
            display_name: typeof payload.name === 'string' ? payload.name : null,
            can_publish: payload.pub !== false,
            // Tokens issued before the claim existed were the API's (keys and members): strong.
            credential: CREDENTIALS.find((c) => c === payload.cred) ?? 'api_key',
            link: typeof payload.lnk === 'string' ? payload.lnk : null,
            issued_at: typeof payload.iat_ms === 'number' ? payload.iat_ms : (payload.iat ?? 0) * 1000,
          },
        };
      } catch (err) {
        if (err instanceof joseErrors.JWTExpired) return { problem: 'the connection token has expired' };
        return { problem: 'the connection token is not valid' };
      }
    },
  };
}
export type ConnectionTokens = ReturnType<typeof connectionTokens>;
