import { hash, verify, type Algorithm } from '@node-rs/argon2';

/** argon2id with the OWASP minimum (m=19456 KiB, t=2, p=1). */
const OPTIONS = { algorithm: 2 as Algorithm, memoryCost: 19456, timeCost: 2, parallelism: 1 };

/** Hashes a password; it is never truncated. */
export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

let dummy: Promise<string> | undefined;

/**
 * Checks a password against a stored hash. With no hash (unknown email) it checks against a
 * dummy one so that both failures take about the same time.
 */
export async function verifyPassword(stored: string | undefined, password: string): Promise<boolean> {
  dummy ??= hashPassword('not-a-real-password-but-costs-the-same');
  const target = stored ?? (await dummy);
  const matches = await verify(target, password).catch(() => false);
  return stored !== undefined && matches;
}
