import { createHash, createHmac, randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Random text in base62 carrying `bytes` bytes of entropy (no modulo bias: rejection sampling). */
export function randomBase62(bytes: number): string {
  const length = Math.ceil((bytes * 8) / Math.log2(62));
  let out = '';
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      if (b < 248 && out.length < length) out += BASE62[b % 62];
    }
  }
  return out;
}

/**
 * Random URL-safe token with `bytes` bytes of entropy (base64url). It never begins with `-`: one
 * in 64 would, and a command line reads such an argument as an option (`vss invitations redeem
 * -Xy…` fails with "unknown option"). A draw that does is drawn again, which costs less than a
 * bit of entropy.
 */
export function randomToken(bytes = 32): string {
  for (;;) {
    const token = randomBytes(bytes).toString('base64url');
    if (!token.startsWith('-')) return token;
  }
}

/** HMAC-SHA256 as lowercase hex: how every secret we issue is stored. */
export function hmacHex(key: Buffer, text: string): string {
  return createHmac('sha256', key).update(text).digest('hex');
}

/** SHA-256 as lowercase hex. */
export function sha256Hex(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}
