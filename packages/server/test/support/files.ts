import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The files anywhere under a folder that hold a byte sequence: how tests prove that deleted media
 * (a redacted participant's) is gone from disk, not only from what the API answers.
 */
export function filesHaving(dir: string, needle: Buffer): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => join(d.parentPath, d.name))
    .filter((path) => readFileSync(path).includes(needle));
}
