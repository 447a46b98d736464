import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../../server/test/support/app.js';
import { freePort, httpTenant } from '../../server/test/support/process.js';
import { scratchDir, typecheck } from './support.js';

/** The README's TypeScript examples, in order. */
const blocks = [
  ...readFileSync(resolve(__dirname, '../README.md'), 'utf8').matchAll(/```ts\n([\s\S]*?)```/g),
].map((m) => m[1]!);

let t: TestApp;
let env: Record<string, string>;
let dir: string;
beforeAll(async () => {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  t = await startApp({ env: { PUBLIC_BASE_URL: baseUrl } });
  await t.app.listen({ port, host: '127.0.0.1' });
  env = { PATH: process.env.PATH ?? '', VSS_BASE_URL: baseUrl, VSS_API_KEY: (await httpTenant(baseUrl)).key };
  dir = scratchDir();
  blocks.forEach((code, i) => writeFileSync(join(dir, `example-${i}.ts`), code));
});
afterAll(async () => {
  await t?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Runs an example as a script; asynchronously, since the server it talks to runs in this process. */
const run = async (i: number) =>
  (
    await promisify(execFile)(process.execPath, ['--import', 'tsx', join(dir, `example-${i}.ts`)], {
      env,
      encoding: 'utf8',
    })
  ).stdout;

describe('packages/client/README.md', () => {
  it('has the three examples', () => expect(blocks).toHaveLength(3));

  it('its examples type-check against the built package', () => {
    typecheck(dir, ['node']);
  }, 120_000);

  it('the calls example creates, reads and lists sessions, and shows a typed error', async () => {
    const out = await run(0);
    expect(out).toMatch(/^created [0-9a-f-]{36} null$/m);
    expect(out).toContain('fetched standup');
    expect(out).toMatch(/^1 on the first page; more: false$/m);
    expect(out).toMatch(/^1 sessions in all$/m);
    expect(out).toMatch(/^400 BAD_REQUEST .*name/m);
  });

  it('the live example joins and records a chat message', async () => {
    const out = await run(1);
    expect(out).toContain('control welcome');
    expect(out).toContain('joined; participants: 1');
    expect(out).toMatch(/^chat recorded as seq \d+$/m);
  });

  it('the browser example loads', async () => {
    expect(await run(2)).toBe('');
  });
});
