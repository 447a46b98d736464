/**
 * The dashboard's live page joining behind the slow uplink: a member in Chromium, started inside a
 * netlab namespace whose uplink is shaped to RATES.slowUpKbit from the start, and a receiver
 * outside it. Judged as the bot's join is (`joinFigures`): from the moment the page says it is
 * connected, the delay being the arrival less the page's own capture timestamp (one machine, one
 * clock).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { CHROMIUM, launchChromium } from './chromium.ts';
import { createLink, type Link } from '../../packages/server/test/support/netlab/links.ts';
import {
  newSession,
  RATES,
  recorded,
  startReceiver,
  stopReceiver,
  type JoinRun,
  type Target,
  type Timings,
} from '../../packages/server/test/support/netlab/scenario.ts';
import { startSound } from '../../packages/web/test/support/firefox.ts';
import { expectCall } from './http.ts';
import { joinLive, member } from './member.ts';
import { benchTenant } from './tenant.ts';

const TSX = resolve(import.meta.dirname, '../../node_modules/tsx/dist/cli.mjs');
const GUEST = resolve(import.meta.dirname, 'firefox-guest.ts');

/**
 * One run: a new link, a new server whose public address is the link's host side (the page's
 * calls must come from it), a new member and session.
 */
export async function runPageJoin(
  startServer: (publicHost: string) => Promise<{ port: number; stop: () => Promise<void> }>,
  tm: Timings,
  n: number,
  engine: 'chromium' | 'firefox' = 'chromium',
): Promise<JoinRun> {
  const link = createLink({ upKbit: RATES.slowUpKbit });
  let server: { port: number; stop: () => Promise<void> } | null = null;
  try {
    server = await startServer(link.hostAddress);
    return engine === 'firefox'
      ? await joinOn(server.port, link, tm, n, 'firefox-join', firefoxGuest)
      : await joinOn(server.port, link, tm, n, 'page-join', chromiumMember);
  } finally {
    await server?.stop();
    link.destroy();
  }
}

/** A publisher inside the link's namespace, joined to the session: `stop` leaves, `dispose` cleans up. */
interface Publisher {
  stop(): Promise<void>;
  dispose(): void;
}
type StartPublisher = (
  base: string,
  tenant: Awaited<ReturnType<typeof benchTenant>>,
  link: Link,
  sessionId: string,
  n: number,
) => Promise<Publisher>;

/** Joins a publisher behind the link and judges the `tm.joinS` seconds after it says it joined. */
async function joinOn(
  port: number,
  link: Link,
  tm: Timings,
  n: number,
  label: string,
  start: StartPublisher,
): Promise<JoinRun> {
  const base = `http://${link.hostAddress}:${port}`;
  const tenant = await benchTenant(base, `${label}-${n}`);
  const t: Target = { port, key: tenant.secret };
  const sessionId = await newSession(t, `${label}: joins behind a slow uplink`);
  const receiver = await startReceiver(t, sessionId, 'viewer', null);
  let publisher: Publisher | null = null;
  try {
    publisher = await start(base, tenant, link, sessionId, n);
    const t0 = Date.now();
    const end = t0 + tm.joinS * 1000;
    await receiver.waitFor((l) => l.t >= end, (tm.joinS + 30) * 1000, `${tm.joinS} s after the join`);
    await publisher.stop();
    return {
      sessionId,
      t0,
      end,
      receiver: await stopReceiver(receiver),
      bot: [],
      record: await recorded(t, sessionId),
    };
  } finally {
    publisher?.dispose();
    if (receiver.child.exitCode === null) receiver.child.kill('SIGKILL');
  }
}

/** A member on the dashboard's live page in Chromium. */
const chromiumMember: StartPublisher = async (base, tenant, link, sessionId, n) => {
  const cookie = await member(base, tenant.projectId, tenant.auth, n);
  // Why a wrapper: playwright starts the executable it is given and talks to it over inherited
  // pipes, which `ip netns exec` passes on.
  const dir = mkdtempSync(join(tmpdir(), 'vss-bench-page-'));
  const wrapper = join(dir, 'chromium-in-netns');
  writeFileSync(wrapper, `#!/bin/sh\nexec ip netns exec ${link.ns} ${CHROMIUM} "$@"\n`, { mode: 0o755 });
  let browser: Browser | null = null;
  const dispose = () => {
    void browser?.close();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    browser = await launchChromium([`--unsafely-treat-insecure-origin-as-secure=${base}`], wrapper);
    await joinLive(browser, base, sessionId, cookie, `page ${n}`);
  } catch (err) {
    dispose();
    throw err;
  }
  return {
    async stop() {
      await browser?.close();
      browser = null;
    },
    dispose,
  };
};

/**
 * A guest in Firefox (through a join link), started inside the namespace by firefox-guest.ts, with
 * a PulseAudio null sink as its speakers, as a person's machine has.
 */
const firefoxGuest: StartPublisher = async (base, tenant, link, sessionId, n) => {
  const joinLink = await expectCall<{ data: { url: string } }>(
    201,
    `${base}/v1/sessions/${sessionId}/join-links`,
    { method: 'POST', headers: tenant.auth, json: {} },
  );
  const sound = await startSound();
  const guest = spawn(
    'ip',
    ['netns', 'exec', link.ns, process.execPath, TSX, GUEST, joinLink.json.data.url, `firefox ${n}`],
    { env: { ...process.env, PULSE_SERVER: sound.server }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const dispose = () => {
    if (guest.exitCode === null) guest.kill('SIGKILL');
    sound.stop();
  };
  try {
    await new Promise<void>((resolve, reject) => {
      guest.stdout.on('data', (b: Buffer) => b.toString().includes('joined') && resolve());
      guest.on('exit', (code) => reject(new Error(`the Firefox guest exited (${code}) before joining`)));
    });
  } catch (err) {
    dispose();
    throw err;
  }
  return {
    async stop() {
      guest.kill('SIGTERM');
      await new Promise((r) => guest.once('exit', r));
    },
    dispose,
  };
};
