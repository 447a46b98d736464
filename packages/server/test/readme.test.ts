import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE, PG_URL } from './support/app.js';
import { dropPgSchema, freePort, pgSchemaUrl, runServer, waitForHttp, type Proc } from './support/process.js';

const ROOT = resolve(__dirname, '../../..');

/**
 * The README's walkthrough: the blocks between "First steps with curl" and "Embed a call in your
 * app" (whose example app web/test/sdk.test.ts runs in a browser).
 */
function walkthrough(): { shell: string; receiver: string } {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('### First steps with curl');
  const end = readme.indexOf('## Embed a call in your app');
  if (start < 0 || end < start) throw new Error('README: the walkthrough headings moved');
  const part = readme.slice(start, end);
  const blocks = [...part.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1], code: m[2]! }));
  const receiver = blocks.filter((b) => b.lang === 'js');
  if (receiver.length !== 1) throw new Error('README: expected one js block (the webhook receiver)');
  return {
    shell: blocks
      .filter((b) => b.lang === 'sh')
      .map((b) => b.code)
      .join('\n'),
    receiver: receiver[0]!.code,
  };
}

/** The README's MCP client configuration (the json block of "Agents (MCP)"). */
function mcpConfig(): {
  mcpServers: { vss: { type: string; url: string; headers: { Authorization: string } } };
} {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const part = readme.slice(readme.indexOf('### Agents (MCP)'), readme.indexOf('## Configuration'));
  const block = /```json\n([\s\S]*?)```/.exec(part);
  if (!block) throw new Error('README: the MCP client configuration moved');
  return JSON.parse(block[1]!);
}

/**
 * Runs a bash script to its end; resolves with its exit code and everything it printed. The
 * script runs in a process group of its own, ended afterwards, so that a background job it
 * started (the webhook receiver) never outlives it, even when the script fails half-way.
 */
function bash(
  script: string,
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number; out: string }> {
  return new Promise((ok) => {
    const child = spawn('bash', ['-e', '-o', 'pipefail', '-c', script], {
      cwd,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('exit', (code) => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // the group is gone already
      }
      ok({ code: code ?? -1, out });
    });
  });
}

describe('the README walkthrough', () => {
  let server: Proc;
  let base: string;
  let dataDir: string;
  let work = '';
  const schema = `readme_${Math.random().toString(36).slice(2, 10)}`;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'vss-readme-data-'));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    server = runServer({
      PORT: String(port),
      DATA_DIR: dataDir,
      // The README asks for this to receive webhooks on this machine.
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      // Only to keep the test short: the walkthrough waits for the session's end, whatever it takes.
      SESSION_DEPARTURE_TIMEOUT_S: '1',
      ...(ENGINE === 'postgres' ? { DATABASE_URL: await pgSchemaUrl(PG_URL, schema) } : {}),
    });
    await waitForHttp(`${base}/health`, 90_000);
  }, 120_000);

  afterAll(async () => {
    server?.child.kill('SIGTERM');
    await server?.exited;
    rmSync(dataDir, { recursive: true, force: true });
    if (work) rmSync(work, { recursive: true, force: true });
    if (ENGINE === 'postgres') await dropPgSchema(PG_URL, schema);
  });

  it('runs every shell block as written, in order, from account to redaction', async () => {
    const { shell, receiver } = walkthrough();
    // The walkthrough's receiver listens on the port RECEIVER_PORT names, as a reader whose port
    // 3000 is taken runs it: a free one, so that the SQLite and PostgreSQL variants, running side
    // by side, and anything else on this machine never meet.
    const receiverPort = await freePort();
    // The README shows the receiver that examples/ holds.
    expect(receiver).toBe(readFileSync(join(ROOT, 'examples', 'receiver.mjs'), 'utf8'));
    // The blocks run unchanged from the repository's folder, as a reader runs them; the files
    // they write (cookies, answers, the MP4) go to the scratch folder they move to, whose name
    // the test asks for at the end.
    const untracked = () =>
      execFileSync('git', ['status', '--porcelain'], { cwd: ROOT, encoding: 'utf8' })
        .split('\n')
        .filter((l) => l.startsWith('??'));
    const before = untracked();
    const { code, out } = await bash(`${shell}\necho; echo "@@folder $PWD"`, ROOT, {
      VSS_URL: base,
      RECEIVER_PORT: String(receiverPort),
    });
    work = /^@@folder (.+)$/m.exec(out)?.[1] ?? '';
    expect(work, out).not.toBe('');
    expect(code, out).toBe(0);
    expect(work.startsWith(ROOT), work).toBe(false);
    expect(untracked().filter((l) => !before.includes(l))).toEqual([]);

    // Step 3: the webhook points at the receiver's port, where the receiver verified and printed
    // the test event, and later the session's events.
    const webhook = JSON.parse(readFileSync(join(work, 'webhook.json'), 'utf8')).data;
    expect(webhook.url).toBe(`http://127.0.0.1:${receiverPort}/`);
    expect(out).toContain('receiver: webhook.test');
    expect(out).toContain('receiver: session.started');
    // Step 4: the participant's chat and 100 tone frames were acknowledged.
    // The README shows this line as it is printed: the seq numbers follow from the steps before.
    expect(out).toContain('recorded 101 messages, seq 4 to 105');
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toContain('recorded 101 messages, seq 4 to 105');
    expect(out).toMatch(/"state":"paused","paused_at":"[^"]+"/);
    expect(out).toMatch(/"user_id":"guest-[0-9A-Za-z]+","display_name":"Ana María","can_publish":true/);
    // Step 6: the replay link opened as returned.
    expect(out).toMatch(/\{"data":\{"events":\[\{"seq":1,/);
    // Step 7: the export completed and downloaded as an MP4.
    expect(out).toContain('export completed');
    expect(out).toMatch(/^200 \d+ bytes$/m);
    const mp4 = readFileSync(join(work, 'standup.mp4'));
    expect(mp4.subarray(4, 8).toString('latin1')).toBe('ftyp');
    // Step 8: the redaction removed alice's one track; the delivery log shows delivered attempts.
    expect(out).toContain('"redacted":"alice","deletedStreams":1');
    expect(out).toMatch(/"status":"succeeded"/);
    // Step 9: alice's minutes and the stored bytes were metered, shown to 2 decimals at most;
    // the portal needs a provider.
    const minutes = out.match(/"streaming_minutes_total":([0-9.e-]+)/)?.[1];
    expect(minutes).toMatch(/^\d+(\.\d{1,2})?$/);
    expect(Number(minutes)).toBeGreaterThan(1 / 60);
    for (const figure of out.matchAll(/"(streaming_minutes\w*|value)":(-?[0-9.e]+)/g))
      expect(figure[2], figure[0]).toMatch(/^-?\d+(\.\d{1,2})?$/);
    expect(Number(out.match(/"storage_bytes_total":(\d+)/)?.[1])).toBeGreaterThan(0);
    // The record's fields in the order the README shows them.
    expect(out).toMatch(/"session_id":"[^"]+","usage_type":"storage_bytes","value":-?\d+,"recorded_at":"/);
    expect(out).toMatch(
      /"cost_breakdown":\{"streaming_cost":[0-9.]+,"storage_cost":[0-9.]+,"total_due":[0-9.]+\}/,
    );
    expect(out).toContain('"is_blocked":false');
    expect(out).toContain('billing is not configured');
    // Step 10: an agent token; then the README's MCP client configuration, as written, with it.
    expect(out).toContain('"prefix":"sat_');
    const secret = JSON.parse(readFileSync(join(work, 'agent.json'), 'utf8')).data.secret as string;
    const config = mcpConfig().mcpServers.vss;
    expect(config.type).toBe('http');
    const client = new Client({ name: 'readme', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(config.url.replace('http://127.0.0.1:8080', base)), {
        requestInit: { headers: { Authorization: config.headers.Authorization.replace('sat_…', secret) } },
      }),
    );
    expect((await client.listTools()).tools).toHaveLength(20);
    await client.close();
  }, 180_000);
});
