import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { sign } from '../../server/src/modules/webhooks/deliver.js';
import { receiver } from '../../server/test/support/webhooks.js';
import { eventually } from '../../server/test/support/wait.js';
import { api, useCliServer, vss, VSS_BIN, vssJson } from './support.js';

const server = useCliServer();
const run = (args: string[], input?: string) => vss(args, { env: server.env, input });

/** A `vss webhooks listen` kept running: its address, and what it has printed so far. */
interface Listening {
  child: ChildProcess;
  url: string;
  stdout: () => string;
  stderr: () => string;
  lines: () => any[];
  stop(): Promise<number | null>;
}

const running: ChildProcess[] = [];
afterEach(() => {
  for (const child of running.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

/** Starts the listener as a user would, and waits for the address it prints first. */
async function startListener(args: string[]): Promise<Listening> {
  const child = spawn(process.execPath, [VSS_BIN, ...args], {
    env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...server.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((ok) => child.on('exit', (code) => ok(code)));
  const first = await eventually(() => /^listening on (http:\/\/\S+)\n/.exec(stderr), 10_000, 'the address');
  return {
    child,
    url: first[1]!,
    stdout: () => stdout,
    stderr: () => stderr,
    lines: () =>
      stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l)),
    stop: async () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

describe('vss webhooks: managing them', () => {
  it('creates one and prints its secret once, lists, gets, updates, pauses, rotates and deletes it', async () => {
    const created = await run([
      'webhooks',
      'create',
      '--url',
      'http://127.0.0.1:9/first',
      '--events',
      'session.created, session.ended',
      '--description',
      'first receiver',
    ]);
    expect(created.code).toBe(0);
    const secret = /^secret\s+(whsec_\S+)$/m.exec(created.stdout)?.[1];
    expect(secret).toBeDefined();
    expect(created.stderr).toContain('shown this once');
    // The hint to try it locally names the receiver's port and keeps the secret off the command line.
    expect(created.stderr).toContain('VSS_WEBHOOK_SECRET=<the secret> vss webhooks listen --port 9');
    expect(created.stderr).not.toContain('whsec_');
    const id = /^id\s+(\S+)$/m.exec(created.stdout)![1]!;
    expect((await api(server, 'GET', `/v1/webhooks/${id}`)).data).toMatchObject({
      url: 'http://127.0.0.1:9/first',
      events: ['session.created', 'session.ended'],
      description: 'first receiver',
      is_active: true,
    });

    const listed = await run(['webhooks', 'list']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^ID\s+URL\s+EVENTS\s+ACTIVE\s+DESCRIPTION$/m);
    expect(listed.stdout).toContain(`${id}  http://127.0.0.1:9/first  session.created, session.ended  yes`);
    expect(listed.stdout).not.toContain('whsec_');

    const got = await vssJson(server, ['webhooks', 'get', id]);
    expect(got).toMatchObject({ id, is_active: true });
    expect(got.secret).toBeUndefined();

    const paused = await vssJson(server, [
      'webhooks',
      'update',
      id,
      '--events',
      'recording.ready',
      '--active',
      'false',
      '--description',
      '',
    ]);
    expect(paused).toMatchObject({ events: ['recording.ready'], is_active: false, description: null });
    // The only webhook is paused: the list says why it looks empty.
    expect((await run(['webhooks', 'list'])).stdout).toBe(
      '(no active webhooks; --include-inactive shows paused ones)\n',
    );
    expect((await api(server, 'GET', `/v1/webhooks/${id}`)).data).toMatchObject({
      is_active: false,
      description: null,
    });
    // A paused webhook is listed only on request.
    expect((await vssJson(server, ['webhooks', 'list'])).map((w: { id: string }) => w.id)).not.toContain(id);
    expect(
      (await vssJson(server, ['webhooks', 'list', '--include-inactive'])).map((w: any) => w.id),
    ).toContain(id);

    const rotated = await vssJson(server, ['webhooks', 'rotate-secret', id]);
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(secret);

    const refused = await run(['webhooks', 'delete', id]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('confirm with --yes');
    expect((await api(server, 'GET', `/v1/webhooks/${id}`)).status).toBe(200);

    const deleted = await run(['webhooks', 'delete', id, '--yes']);
    expect(deleted.code).toBe(0);
    expect(deleted.stdout).toBe(`deleted ${id}\n`);
    expect((await api(server, 'GET', `/v1/webhooks/${id}`)).status).toBe(404);
    const gone = await run(['webhooks', 'get', id]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/^vss: NOT_FOUND \(HTTP 404\): .+\n$/);
  });

  it('refuses bad input: missing options exit 2, an unknown event type is the API error naming events', async () => {
    const noEvents = await run(['webhooks', 'create', '--url', 'http://127.0.0.1:9/x']);
    expect(noEvents.code).toBe(2);
    expect(noEvents.stderr).toContain("required option '--events <types>' not specified");

    const empty = await run([
      'webhooks',
      'create',
      '--url',
      'http://127.0.0.1:9/x',
      '--events',
      'session.created,',
    ]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('--events');

    const unknown = await run([
      'webhooks',
      'create',
      '--url',
      'http://127.0.0.1:9/x',
      '--events',
      'session.created,session.exploded',
    ]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^vss: BAD_REQUEST \(HTTP 400\): .*events.*\n$/);
    expect((await api(server, 'GET', '/v1/webhooks?include_inactive=true')).data).toEqual([]);

    const nothing = await run(['webhooks', 'update', randomUUID()]);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toContain('give --url, --events, --description or --active');

    const active = await run(['webhooks', 'update', randomUUID(), '--active', 'maybe']);
    expect(active.code).toBe(2);
    expect(active.stderr).toContain('expected one of true, false');

    for (const args of [
      ['webhooks', 'test', randomUUID()],
      ['webhooks', 'deliveries', randomUUID()],
      ['webhooks', 'rotate-secret', randomUUID()],
    ]) {
      const r = await run(args);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr).toMatch(/^vss: NOT_FOUND \(HTTP 404\): /);
    }

    const wrongKey = await vss(['webhooks', 'list'], {
      env: { ...server.env, VSS_API_KEY: 'sk_live_not_a_key' },
    });
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stderr).toMatch(/^vss: UNAUTHORIZED \(HTTP 401\): .+\n$/);
  });
});

describe('vss webhooks listen', () => {
  it('verifies real deliveries (a test and a session.created), refuses a bad signature with 401, and stops on SIGTERM', async () => {
    const hook = await vssJson(server, [
      'webhooks',
      'create',
      '--url',
      'http://127.0.0.1:9/not-yet',
      '--events',
      'session.created',
    ]);
    const listener = await startListener([
      '--json',
      'webhooks',
      'listen',
      '--port',
      '0',
      '--secret',
      hook.secret,
    ]);
    expect(listener.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(
      (await vssJson(server, ['webhooks', 'update', hook.id, '--url', `${listener.url}/hook`])).url,
    ).toBe(`${listener.url}/hook`);

    const sent = await vssJson(server, ['webhooks', 'test', hook.id]);
    expect(sent.type).toBe('webhook.test');
    const session = await vssJson(server, ['sessions', 'create', '--name', 'heard']);

    const [test, created] = await eventually(
      () => {
        const lines = listener.lines();
        const t = lines.find((l) => l.event_id === sent.event_id);
        const c = lines.find((l) => l.type === 'session.created');
        return t && c ? [t, c] : null;
      },
      15_000,
      'both deliveries',
    );
    expect(test).toMatchObject({ valid: true, status: 200, type: 'webhook.test', repeat: false });
    expect(test.event.data).toEqual({ webhook_id: hook.id });
    expect(created).toMatchObject({ valid: true, status: 200, session_id: session.id });
    expect(created.event).toMatchObject({ type: 'session.created', session_id: session.id });

    // The server logged both attempts as succeeded: the listener answered 2xx.
    const log = await eventually(async () => {
      const rows = await vssJson(server, ['webhooks', 'deliveries', hook.id]);
      return rows.length === 2 ? rows : null;
    });
    expect(log.map((d: any) => [d.status, d.response_status])).toEqual([
      ['succeeded', 200],
      ['succeeded', 200],
    ]);

    // Someone else's POST: a body the secret did not sign.
    const body = JSON.stringify({ ...created.event, session_id: randomUUID() });
    const forged = await fetch(`${listener.url}/hook`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-service-signature': 'ab'.repeat(32),
        'x-service-event-id': created.event_id,
        'x-service-timestamp': String(Math.floor(Date.now() / 1000)),
      },
      body,
    });
    expect(forged.status).toBe(401);
    const invalid = await eventually(() => listener.lines().find((l) => l.valid === false));
    expect(invalid).toMatchObject({ status: 401, reason: 'X-Service-Signature does not match the body' });

    expect(await listener.stop()).toBe(0);
    expect(listener.stderr()).toContain('stopped (SIGTERM)');
  });

  it('prints one line per delivery for people, refuses replays of old deliveries, and forwards valid ones', async () => {
    const hook = await vssJson(server, [
      'webhooks',
      'create',
      '--url',
      'http://127.0.0.1:9/unused',
      '--events',
      'session.ended',
    ]);
    const app = await receiver(0, () => 503);
    try {
      const listener = await startListener([
        'webhooks',
        'listen',
        '--port',
        '0',
        '--secret',
        hook.secret,
        '--forward-to',
        app.url,
      ]);
      const eventId = randomUUID();
      const sessionId = randomUUID();
      const raw = Buffer.from(
        JSON.stringify({
          id: eventId,
          type: 'session.ended',
          project_id: server.projectId,
          session_id: sessionId,
          data: {},
        }),
      );
      // Signed as the server signs, once now and once ten minutes ago (a captured delivery replayed).
      const post = async (at: number) => {
        const signed = await sign(hook.secret, eventId, raw, at);
        return fetch(listener.url, {
          method: 'POST',
          headers: signed.headers,
          body: new Uint8Array(signed.body),
        });
      };
      const fresh = await post(Date.now());
      // The forwarding target's answer is what the server would see.
      expect(fresh.status).toBe(503);
      expect(app.hits).toHaveLength(1);
      expect(app.hits[0]!.raw.equals(raw)).toBe(true);
      expect(app.hits[0]!.headers['x-service-signature']).toBe(
        (await sign(hook.secret, eventId, raw, Date.now())).headers['x-service-signature'],
      );

      expect((await post(Date.now() - 600_000)).status).toBe(401);
      expect(app.hits).toHaveLength(1);

      const get = await fetch(listener.url);
      expect(get.status).toBe(405);

      expect(await listener.stop()).toBe(0);
      const lines = listener.stdout().trimEnd().split('\n');
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(
        new RegExp(
          `^\\d\\d:\\d\\d:\\d\\d  valid    503  session\\.ended     ${eventId}  session ${sessionId}  → ${app.url} 503$`,
        ),
      );
      expect(lines[1]).toMatch(
        /^\d\d:\d\d:\d\d {2}invalid {2}401 {2}signed 60[01] s ago, more than the 300 s allowed \(a replay\?\)/,
      );
    } finally {
      await app.close();
    }
  });

  it('refuses a missing or malformed secret (exit 2) and a port in use (exit 1)', async () => {
    const none = await run(['webhooks', 'listen', '--port', '0']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("required option '--secret <whsec>' not specified");

    const wrong = await run(['webhooks', 'listen', '--port', '0', '--secret', 'sk_live_oops']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/^vss: --secret: expected the whsec_… secret/);

    const busy = createServer();
    await new Promise<void>((ok) => busy.listen(0, '127.0.0.1', ok));
    try {
      const port = String((busy.address() as { port: number }).port);
      const r = await run(['webhooks', 'listen', '--port', port, '--secret', `whsec_${'A'.repeat(43)}=`]);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(
        `vss: cannot listen on 127.0.0.1:${port}: the port is in use (choose another --port)\n`,
      );
    } finally {
      await new Promise((ok) => busy.close(ok));
    }
  });
});

describe('vss webhooks redeliver', () => {
  it('sends a logged delivery again and prints the new attempt; a refused one exits 1 with the answer', async () => {
    // The first attempt is refused (its retry is minutes away); the redelivery is taken; the next refused.
    const app = await receiver(0, (_h, i) => (i === 1 ? 200 : 500));
    try {
      const hook = await vssJson(server, [
        'webhooks',
        'create',
        '--url',
        app.url,
        '--events',
        'session.created',
      ]);
      const session = await vssJson(server, ['sessions', 'create', '--name', 'told twice']);
      const [first] = await eventually(async () => {
        const rows = await vssJson(server, ['webhooks', 'deliveries', hook.id]);
        return rows.length === 1 ? rows : null;
      });
      expect(first).toMatchObject({ status: 'failed', response_status: 500, redelivery_of: null });
      expect(first.payload).toMatchObject({ type: 'session.created', session_id: session.id });

      // For people: the attempt once sent, field by field, without the payload.
      const again = await run(['webhooks', 'redeliver', hook.id, first.id]);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toMatch(/^status\s+succeeded$/m);
      expect(again.stdout).toMatch(/^response_status\s+200$/m);
      expect(again.stdout).toMatch(new RegExp(`^redelivery_of\\s+${first.id}$`, 'm'));
      expect(again.stdout).toMatch(new RegExp(`^event_id\\s+${first.event_id}$`, 'm'));
      expect(again.stdout).not.toContain('payload');
      expect(app.hits).toHaveLength(2);
      expect(app.hits[1]!.headers['x-service-event-id']).toBe(first.event_id);
      expect(app.hits[1]!.raw.equals(app.hits[0]!.raw)).toBe(true);

      // The log lists it as a row of its own, marked as sent again.
      const table = await run(['webhooks', 'deliveries', hook.id]);
      expect(table.stdout).toMatch(/^AT\s+DELIVERY\s+EVENT\s+.*\s+SENT AGAIN OF$/m);
      const newId = /^id\s+(\S+)$/m.exec(again.stdout)![1]!;
      expect(table.stdout).toMatch(new RegExp(`${newId}\\s+session\\.created\\s.*\\s${first.id}$`, 'm'));

      // --json --no-wait: the new row as queued, payload and all.
      const queued = await vssJson(server, ['webhooks', 'redeliver', hook.id, first.id, '--no-wait']);
      expect(queued).toMatchObject({ status: 'pending', redelivery_of: first.id, payload: first.payload });
      await eventually(() => app.hits.length === 3, 10_000, 'the third request');

      // Refused: the attempt is printed, and the exit code says it failed.
      const refused = await run(['webhooks', 'redeliver', hook.id, first.id]);
      expect(refused.code).toBe(1);
      expect(refused.stdout).toMatch(/^status\s+failed$/m);
      expect(refused.stderr).toBe('vss: the redelivery failed: answered 500\n');

      const unknown = await run(['webhooks', 'redeliver', hook.id, randomUUID()]);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toMatch(/^vss: NOT_FOUND \(HTTP 404\): delivery not found: /);
      const missing = await run(['webhooks', 'redeliver', hook.id]);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain("missing required argument 'deliveryId'");
    } finally {
      await app.close();
    }
  });
});
