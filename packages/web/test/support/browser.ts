/**
 * Browser tests: the real server process (its entry point, as `npm start` runs it) serving the
 * built dashboard, driven in Debian's Chromium by playwright-core, with Chromium's fake camera and
 * microphone. Skipped, with the reason printed, on a machine without Chromium.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { LiveClient } from '@vss/client';
import { decodeBinaryFrame, decodeEvc1, isEvc1, isVideoCodec, type ControlFrame } from '@vss/protocol';
import {
  chromium,
  type APIRequestContext,
  type Browser,
  type BrowserContext,
  type Page,
} from 'playwright-core';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { WebSocket as NodeWebSocket } from 'ws';
import { freePort, runServer, waitForHttp, type Proc } from '../../../server/test/support/process.js';
import { WEB_DIST } from '../../../server/src/modules/dashboard/routes.js';

/** The Chromium the tests drive: CHROMIUM_PATH, else Debian's. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Why browser tests cannot run here, or null when they can. */
export const browserSkipReason: string | null = !existsSync(CHROMIUM)
  ? `no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH; .ci/run installs it)`
  : !existsSync(join(WEB_DIST, 'index.html'))
    ? 'the dashboard is not built (npm test builds it first)'
    : null;

const told = new Set<string>();
/**
 * A describe block that runs only where `reason` is null; elsewhere it is skipped and the reason is
 * printed once per kind of test (`what`), so a run says why a part of it did not happen.
 */
export function describeIf(reason: string | null, what: string, name: string, fn: () => void): void {
  if (reason && !told.has(what)) {
    told.add(what);
    // eslint-disable-next-line no-console -- the one line that says why these tests did not run
    console.log(`[vss] ${what} skipped: ${reason}.`);
  }
  describe.skipIf(reason !== null)(name, fn);
}

/** A describe block of browser tests: skipped with the reason printed where Chromium is missing. */
export const describeBrowser = (name: string, fn: () => void): void =>
  describeIf(browserSkipReason, 'browser tests', name, fn);

let accounts = 0;

/** Where the tests write the screenshots the README shows. */
export const SCREENSHOTS = resolve(__dirname, '../../../../docs/screenshots');

/** A server process from the real entry point on fresh embedded storage. */
export interface Vss {
  base: string;
  proc: Proc;
  dataDir: string;
  stop(): Promise<void>;
}

/**
 * Starts the server with its defaults on a free port, plus `env` (or what `env` gives for the
 * port); stop() ends it and deletes its data.
 */
export async function startVss(
  env: Record<string, string> | ((port: number) => Record<string, string>) = {},
): Promise<Vss> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'vss-web-'));
  const base = `http://127.0.0.1:${port}`;
  const proc = runServer({
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    // the tests' webhook receivers listen on loopback
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    // sessions end soon after their last participant leaves, so replays can follow at once
    SESSION_DEPARTURE_TIMEOUT_S: '1',
    ...(typeof env === 'function' ? env(port) : env),
  });
  try {
    // Generous: a server starting beside a browser decoding video on two cores can take a while.
    await waitForHttp(`${base}/health`, 60_000);
  } catch (err) {
    proc.child.kill('SIGKILL');
    throw new Error(`${(err as Error).message}\n${proc.out()}`);
  }
  return {
    base,
    proc,
    dataDir,
    async stop() {
      proc.child.kill('SIGTERM');
      await proc.exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The fixture of a describe block: a server process and a browser for its tests, started before
 * them and stopped after (the server's data deleted). `bind` receives both once they run.
 */
export function useBrowserApp(bind: (vss: Vss, browser: Browser) => void): void {
  let vss: Vss | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    [vss, browser] = await Promise.all([startVss(), launchBrowser()]);
    bind(vss, browser);
  });
  afterAll(async () => {
    await browser?.close();
    await vss?.stop();
  });
}

/**
 * Launches headless Chromium with a fake camera and microphone that need no permission prompt;
 * `executablePath` and extra `args` for a browser started otherwise (e.g. in a network namespace).
 */
export function launchBrowser(opts: { executablePath?: string; args?: string[] } = {}): Promise<Browser> {
  return chromium.launch({
    executablePath: opts.executablePath ?? CHROMIUM,
    args: [
      ...(opts.args ?? []),
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--use-fake-device-for-media-stream',
      '--use-fake-ui-for-media-stream',
      '--autoplay-policy=no-user-gesture-required',
    ],
  });
}

/** A new account through the API, as a new user makes one: its project, an API key and its login cookie. */
export async function newAccount(
  base: string,
  label: string,
): Promise<{ projectId: string; secret: string; cookie: string }> {
  const reg = await fetch(`${base}/v1/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      email: `${label}-${++accounts}-${Date.now()}@example.com`,
      password: 'a long passphrase',
    }),
  });
  const projectId = ((await reg.json()) as { data: { project_id: string } }).data.project_id;
  const cookie = reg.headers
    .getSetCookie()
    .map((c) => c.split(';')[0]!)
    .find((c) => c.startsWith('service_session='))!;
  const key = await fetch(`${base}/v1/projects/${projectId}/api-keys`, {
    method: 'POST',
    headers: { cookie, origin: base, 'content-type': 'application/json' },
    body: JSON.stringify({ label }),
  });
  const secret = ((await key.json()) as { data: { secret: string } }).data.secret;
  return { projectId, secret, cookie: cookie.slice('service_session='.length) };
}

/** A fresh browser profile (no cookie) at the dashboard, allowed the camera and microphone. */
export async function newContext(browser: Browser, base: string): Promise<BrowserContext> {
  const context = await browser.newContext({
    baseURL: base,
    viewport: { width: 1280, height: 800 },
    permissions: ['camera', 'microphone', 'clipboard-read', 'clipboard-write'],
  });
  context.setDefaultTimeout(15_000);
  return context;
}

/** Signs up through the sign-up page; lands on the sessions page. Returns the email used. */
export async function signUp(
  page: Page,
  email = `user${++accounts}-${Date.now()}@example.com`,
): Promise<string> {
  await page.goto('/signup');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('a long passphrase');
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect.poll(() => new URL(page.url()).pathname, { timeout: 15_000 }).toBe('/sessions');
  await page.getByRole('heading', { name: 'Sessions' }).waitFor();
  return email;
}

/** Signs in through the sign-in page. */
export async function signIn(page: Page, email: string): Promise<void> {
  await page.goto('/login');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('a long passphrase');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Sessions' }).waitFor();
}

/**
 * Writes `docs/screenshots/<name>.png` (shown in the README), the viewport or the whole page, when
 * VSS_SCREENSHOTS is set (`VSS_SCREENSHOTS=1 npm test` refreshes them); otherwise a test run leaves
 * the tracked pictures alone.
 */
export async function screenshot(page: Page, name: string, fullPage = false): Promise<void> {
  if (!process.env.VSS_SCREENSHOTS) return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  // A whole page is taken from its top: scrolled, the sticky top bar would be drawn where the
  // scroll left it, across the middle of the picture.
  if (fullPage) await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage });
}

/** Polls up to 15 s: the machine may be busy (the default is 1 s). */
export function poll<T>(fn: () => T | Promise<T>): ReturnType<typeof expect.poll<T>> {
  return expect.poll(fn, { timeout: 15_000 });
}

/** At phone width (375 px) the page's content needs no sideways scrolling (wide tables scroll in their frame). */
export async function fitsPhone(page: Page): Promise<boolean> {
  await page.setViewportSize({ width: 375, height: 800 });
  return page.evaluate(() => {
    const main = document.querySelector('main')!;
    return main.scrollWidth <= main.clientWidth;
  });
}

/** Joins the live page under `name` (camera and microphone as the browser offers them) and waits until connected. */
export async function joinLive(page: Page, name: string): Promise<void> {
  await page.getByLabel('Name in this session').fill(name);
  await page.getByRole('button', { name: 'Join' }).click();
  await page
    .getByRole('status')
    .filter({ hasText: `Connected as ${name}` })
    .waitFor();
}

/** Creates a session from the sessions page (signed in) and returns its id and page path. */
export async function createSession(page: Page, name: string): Promise<{ id: string; path: string }> {
  await page.getByLabel('New session name').fill(name);
  await page.getByRole('button', { name: 'Create session' }).click();
  await expect.poll(() => new URL(page.url()).pathname).toMatch(/^\/sessions\/[0-9a-f-]{36}$/);
  const path = new URL(page.url()).pathname;
  return { id: path.split('/').pop()!, path };
}

/**
 * A live connection token for `userId`, asked for with an API key of the session's project, made
 * with the page's login cookie (once per page load): the cookie itself gives a token only for its
 * own account.
 */
export function liveToken(page: Page, sessionId: string, userId: string): Promise<string> {
  return page.evaluate(
    async ([id, user]) => {
      const w = window as unknown as { testApiKey?: string };
      const post = (path: string, body: unknown, key?: string) =>
        fetch(path, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
          body: JSON.stringify(body),
        });
      if (!w.testApiKey) {
        const session = (await (await fetch(`/v1/sessions/${id}`)).json()) as {
          data: { project_id: string };
        };
        const key = await post(`/v1/projects/${session.data.project_id}/api-keys`, {});
        w.testApiKey = ((await key.json()) as { data: { secret: string } }).data.secret;
      }
      const res = await post(`/v1/sessions/${id}/connection`, { user_id: user }, w.testApiKey);
      return ((await res.json()) as { data: { access_token: string } }).data.access_token;
    },
    [sessionId, userId] as const,
  );
}

/** The account id of the member signed in on `page`: their participant id in live sessions. */
export async function accountId(page: Page): Promise<string> {
  const res = await page.request.get('/v1/auth/session');
  return ((await res.json()) as { data: { id: string } }).data.id;
}

/**
 * Signs `page` up as a new member of the organisation of the owner signed in on `owner`, through
 * an invitation; lands on the sessions page. Returns the new member's email.
 */
export async function signUpMember(owner: Page, page: Page): Promise<string> {
  const base = new URL(owner.url()).origin;
  const projects = (await (await owner.request.get(`${base}/v1/projects`)).json()) as {
    data: Array<{ id: string }>;
  };
  const email = `member${++accounts}-${Date.now()}@example.com`;
  const invitation = await dashboardPost(
    owner.request,
    base,
    `/v1/projects/${projects.data[0]!.id}/invitations`,
    {
      email,
      role: 'member',
    },
  );
  await signUp(page, email);
  await dashboardPost(page.request, base, '/v1/invitations/redeem', { token: invitation.token });
  return email;
}

/**
 * A live client in Node, as the tests publish and receive with: `userId` in a session, binary
 * frames, no reconnecting; `token` gives its connection tokens.
 */
export function nodeLiveClient(
  base: string,
  sessionId: string,
  userId: string,
  token: () => Promise<string>,
): LiveClient {
  return new LiveClient({
    url: base.replace(/^http/, 'ws'),
    session: sessionId,
    userId,
    format: 'binary',
    WebSocket: NodeWebSocket as never,
    reconnect: false,
    token,
  });
}

/** A cookie request as the dashboard makes it (same origin, JSON): its `data`; throws on an error. */
export async function dashboardPost(request: APIRequestContext, base: string, path: string, body: unknown) {
  const res = await request.post(`${base}${path}`, { data: body, headers: { origin: base } });
  const json = await res.json();
  if (!res.ok()) throw new Error(`${path}: ${res.status()} ${JSON.stringify(json)}`);
  return json.data;
}

/** The picture size a VP8 key frame states (RFC 6386 §9.1), or null for a delta frame or other bytes. */
export function vp8Size(data: Uint8Array): { width: number; height: number } | null {
  if (data.length < 10 || (data[0]! & 1) !== 0) return null;
  if (data[3] !== 0x9d || data[4] !== 0x01 || data[5] !== 0x2a) return null;
  return { width: (data[6]! | (data[7]! << 8)) & 0x3fff, height: (data[8]! | (data[9]! << 8)) & 0x3fff };
}

/** One media frame a page sent on its live connection, as the server reads it. */
export interface SentVideo {
  streamType: string;
  layer: number;
  /** the publish's id: an ack is wanted */
  id: string | undefined;
  timestampMs: number;
  key: boolean;
  timestampUs: number;
  /** key frames: the picture's size */
  size: { width: number; height: number } | null;
  bytes: number;
  /** when the test saw it (performance.now() of the test process) */
  at: number;
}

/**
 * Records every EVC1 video frame `page` publishes from now on, read off its WebSocket as sent
 * (binary publish frames, kinds 1 and 3), into the returned array.
 */
export function watchSentVideo(page: Page): SentVideo[] {
  const sent: SentVideo[] = [];
  page.on('websocket', (ws) =>
    ws.on('framesent', ({ payload }) => {
      if (typeof payload === 'string' || payload[0] !== 0x56) return;
      const f = decodeBinaryFrame(new Uint8Array(payload));
      if (!f.streamType.startsWith('media/') || !isEvc1(f.payload)) return;
      const c = decodeEvc1(f.payload);
      if (!isVideoCodec(c.codec)) return;
      sent.push({
        streamType: f.streamType,
        layer: f.layer ?? 0,
        id: f.id,
        timestampMs: f.timestampMs,
        key: c.key,
        timestampUs: c.timestampUs,
        size: c.key ? vp8Size(c.data) : null,
        bytes: payload.length,
        at: performance.now(),
      });
    }),
  );
  return sent;
}

/** One video frame a receiver got. */
export interface GotVideo {
  streamType: string;
  seq: number;
  key: boolean;
  size: { width: number; height: number } | null;
  at: number;
}

/** A Node participant that only receives: what it gets of everybody's video, and the controls. */
export interface Receiver {
  client: LiveClient;
  video: GotVideo[];
  controls: ControlFrame[];
  close(): Promise<void>;
}

/** Connects a receiving participant `userId` to a session, with a token got through `page`. */
export async function receiver(vss: Vss, page: Page, sessionId: string, userId: string): Promise<Receiver> {
  const client = nodeLiveClient(vss.base, sessionId, userId, () => liveToken(page, sessionId, userId));
  const video: GotVideo[] = [];
  const controls: ControlFrame[] = [];
  client.on('message', (m) => {
    if (!m.streamType.startsWith('media/') || !isEvc1(m.payload)) return;
    const c = decodeEvc1(m.payload);
    if (!isVideoCodec(c.codec)) return;
    video.push({
      streamType: m.streamType,
      seq: m.seq,
      key: c.key,
      size: c.key ? vp8Size(c.data) : null,
      at: performance.now(),
    });
  });
  client.on('control', (c) => void controls.push(c));
  await client.connect();
  return { client, video, controls, close: () => client.close() };
}

/** A Chromium that runs inside a network namespace: a wrapper script, and its removal. */
export interface ChromiumInNamespace {
  executablePath: string;
  remove(): void;
}

/**
 * Writes a wrapper that starts CHROMIUM inside network namespace `ns` (a netlab link's,
 * packages/server/test/support/netlab/links.ts), for `launchBrowser({ executablePath })`.
 * Why a wrapper: playwright starts the executable it is given and talks to it over inherited
 * pipes, which `ip netns exec` passes on.
 */
export function chromiumIn(ns: string): ChromiumInNamespace {
  const dir = mkdtempSync(join(tmpdir(), 'vss-netns-'));
  const executablePath = join(dir, 'chromium-in-netns');
  writeFileSync(executablePath, `#!/bin/sh\nexec ip netns exec ${ns} ${CHROMIUM} "$@"\n`, { mode: 0o755 });
  return { executablePath, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
