import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '../../..');
/** semver, as npm itself reads `engines` (in the tree through npm's own dependencies). */
const semver = createRequire(import.meta.url)('semver') as {
  minVersion(range: string): { version: string } | null;
  satisfies(version: string, range: string): boolean;
};

/** A package of the lockfile; old packages may still give `engines` as an array, which npm ignores. */
interface LockEntry {
  engines?: { node?: string } | string[];
}

describe('installing with npm ci', () => {
  it('installs only packages that run on the oldest Node the project declares, the one the README names', () => {
    const lock = JSON.parse(readFileSync(`${ROOT}/package-lock.json`, 'utf8')) as {
      packages: Record<string, LockEntry>;
    };
    const declared = (lock.packages['']!.engines as { node: string }).node;
    const floor = semver.minVersion(declared)!.version;
    expect(declared).toBe(
      (JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8')) as { engines: { node: string } }).engines
        .node,
    );
    const [major, minor] = floor.split('.');
    expect(readFileSync(`${ROOT}/README.md`, 'utf8')).toContain(`Node ${major}.${minor} or newer`);

    // npm ci warns EBADENGINE for each of these: the README's promise would not hold.
    const refusing = Object.entries(lock.packages)
      .map(([path, p]) => [path, Array.isArray(p.engines) ? undefined : p.engines?.node] as const)
      .filter(([, node]) => node !== undefined && !semver.satisfies(floor, node))
      .map(([path, node]) => `${path} needs Node ${node}`);
    expect(refusing).toEqual([]);
  });
});
