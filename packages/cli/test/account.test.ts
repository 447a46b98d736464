import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, join, jpeg, leave, publish } from '../../server/test/support/live.js';
import { localStripe, STRIPE_WEBHOOK_SECRET } from '../../server/test/support/stripe.js';
import { api, useCliServer, vss, vssJson } from './support.js';

// Usage written every second, and a session ends as its last participant leaves: the records of
// a short live session appear within the test.
const server = useCliServer({ USAGE_FLUSH_INTERVAL_S: '1', SESSION_DEPARTURE_TIMEOUT_S: '0' });
const run = (args: string[], env: Record<string, string> = {}) =>
  vss(args, { env: { ...server.env, ...env } });

async function register(email: string, password: string): Promise<void> {
  const res = await fetch(`${server.baseUrl}/v1/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  expect(res.status).toBe(201);
}

describe('vss usage and billing', () => {
  let sessionId = '';
  beforeAll(async () => {
    // Real usage: a participant streams a frame into a session and leaves, which ends it.
    sessionId = (await vssJson(server, ['sessions', 'create', '--name', 'metered'])).id;
    const alice = await join(server.app, server.key, sessionId, 'alice');
    alice.send(publish('media/alice/cam', jpeg(1), { id: 'f1' }));
    await alice.waitFor((m) => m.type === 'control' && m.event === 'ack');
    await leave(alice);
    await eventually(
      async () => {
        const records = (await api(server, 'GET', '/v1/usage')).data.records as Array<{ usage_type: string }>;
        const types = new Set(records.map((r) => r.usage_type));
        return types.has('streaming_minutes') && types.has('storage_bytes');
      },
      15_000,
      'usage records of the session',
    );
  });

  it("shows the organisation's usage: totals, then the records", async () => {
    const r = await run(['usage']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^streaming minutes {2}\d+(\.\d+)?\nstored {13}\d+(\.\d+)? (B|kB|MB)\n\nRECORDED\s+TYPE\s+VALUE\s+SESSION\s+PROJECT\n/,
    );
    expect(r.stdout).toMatch(new RegExp(`storage_bytes\\s+\\d+(\\.\\d+)? (B|kB|MB)\\s+${sessionId}`));
    expect(r.stdout).toMatch(new RegExp(`streaming_minutes\\s+[\\d.]+\\s+${sessionId}`));

    const json = await vssJson(server, ['usage']);
    expect(json).toEqual(await api(server, 'GET', '/v1/usage').then((a) => a.data));
    expect(json.summary.storage_bytes_total).toBeGreaterThan(0);
    expect(json.summary.streaming_minutes_total).toBeGreaterThan(0);
  });

  it('filters by session, project and time, and gives daily totals', async () => {
    const other = (await vssJson(server, ['sessions', 'create'])).id;
    const bySession = await vssJson(server, ['usage', '--session', sessionId]);
    expect(bySession.records.length).toBeGreaterThan(0);
    expect(bySession.records.every((r: { session_id: string }) => r.session_id === sessionId)).toBe(true);
    expect((await vssJson(server, ['usage', '--session', other])).records).toEqual([]);

    const project = await vssJson(server, ['usage', '--project', server.projectId]);
    expect(project.summary).toEqual(bySession.summary);
    const empty = await vssJson(server, ['projects', 'create', 'unused']);
    expect((await vssJson(server, ['usage', '--project', empty.id])).records).toEqual([]);

    const future = await vssJson(server, ['usage', '--from', '2999-01-01']);
    expect(future.records).toEqual([]);

    const days = await vssJson(server, ['usage', '--daily']);
    expect(days).toHaveLength(31);
    const today = new Date().toISOString().slice(0, 10);
    expect(days.at(-1)).toMatchObject({ date: today });
    expect(days.at(-1).storage_bytes).toBeGreaterThan(0);
    const week = await run(['usage', '--daily', '--from', '2026-01-01', '--to', '2026-01-07']);
    expect(week.code).toBe(0);
    expect(week.stdout.split('\n')[0]).toMatch(/^DATE\s+MINUTES\s+STORED$/);
    expect(week.stdout).toContain('2026-01-01  0        0 B');
    // --to is exclusive: the six days before the 7th.
    expect(week.stdout.trimEnd().split('\n')).toHaveLength(7);
    expect(week.stdout.trimEnd().split('\n').at(-1)).toMatch(/^2026-01-06 /);
    expect(await vssJson(server, ['usage', '--daily', '--project', empty.id])).toSatisfy((d: any[]) =>
      d.every((day) => day.storage_bytes === 0 && day.streaming_minutes === 0),
    );
  });

  it('refuses bad filters: a malformed time (exit 2), --session with --daily (exit 2), the API on a bad id (exit 1)', async () => {
    const from = await run(['usage', '--from', 'yesterday']);
    expect(from.code).toBe(2);
    expect(from.stderr).toContain(
      '--from: expected a date (2026-11-01) or an ISO time with a zone, got "yesterday"',
    );

    const noZone = await run(['usage', '--to', '2026-01-01T10:00']);
    expect(noZone.code).toBe(2);
    expect(noZone.stderr).toContain('--to: expected a date');
    expect((await vssJson(server, ['usage', '--to', '2026-01-01T10:00:00+02:00'])).records).toEqual([]);

    const daily = await run(['usage', '--daily', '--session', sessionId]);
    expect(daily.code).toBe(2);

    const badSession = await run(['usage', '--session', 'not-a-uuid']);
    expect(badSession.code).toBe(1);
    expect(badSession.stderr).toMatch(/^vss: BAD_REQUEST \(HTTP 400\): .*session_id/);

    const order = await run(['usage', '--from', '2026-02-01', '--to', '2026-01-01']);
    expect(order.code).toBe(1);
    expect(order.stderr).toMatch(/^vss: BAD_REQUEST \(HTTP 400\): /);

    const foreign = await run(['usage', '--project', randomUUID()]);
    expect(foreign.code).toBe(1);
    expect(foreign.stderr).toMatch(/^vss: NOT_FOUND \(HTTP 404\): /);
  });

  it('prints the billing summary and limits, and the API error for the portal without a provider', async () => {
    const summary = await run(['billing', 'summary']);
    expect(summary.code).toBe(0);
    expect(summary.stdout).toMatch(/^period +\d{4}-\d\d-01 00:00:00Z to \d{4}-\d\d-01 00:00:00Z$/m);
    expect(summary.stdout).toMatch(/^total_due +\$\d+\.\d\d$/m);
    const json = await vssJson(server, ['billing', 'summary']);
    expect(json).toMatchObject({ currency: 'usd' });
    expect(json.storage_bytes_used).toBeGreaterThan(0);

    const limits = await vssJson(server, ['billing', 'limits']);
    expect(limits).toMatchObject({
      within_free_tier: true,
      is_blocked: false,
      has_active_subscription: false,
    });
    expect((await run(['billing', 'limits'])).stdout).toMatch(/^is_blocked +false$/m);

    const portal = await run(['billing', 'portal']);
    expect(portal.code).toBe(1);
    expect(portal.stdout).toBe('');
    expect(portal.stderr).toMatch(/^vss: CONFLICT \(HTTP 409\): .*not configured.*\n$/);

    const wrong = await run(['billing', 'summary'], { VSS_API_KEY: 'sk_live_wrong' });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/^vss: UNAUTHORIZED \(HTTP 401\): /);
  });
});

describe('vss billing portal with a payment provider', () => {
  // A local Stripe, started before the server so that the server's environment can name it.
  let stripe: Awaited<ReturnType<typeof localStripe>>;
  const env: Record<string, string> = {};
  beforeAll(async () => {
    stripe = await localStripe();
    Object.assign(env, {
      BILLING_PROVIDER: 'stripe',
      STRIPE_SECRET_KEY: 'sk_test_local',
      STRIPE_WEBHOOK_SECRET,
      STRIPE_API_URL: stripe.url,
      // The dashboard's own origin is allowed by itself; this one is the operator's other app.
      BILLING_RETURN_ORIGINS: 'https://app.example.com',
    });
  });
  afterAll(() => stripe?.close());
  const paid = useCliServer(env);

  it("prints the portal's address for the organisation, or for one project's own customer", async () => {
    const r = await vss(['billing', 'portal', '--return-url', 'https://app.example.com/settings'], {
      env: paid.env,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^https:\/\/billing\.stripe\.test\/p\/session_\d+\n$/);
    const sessions = () => stripe.requests.filter((q) => q.path === '/v1/billing_portal/sessions');
    expect(sessions().at(-1)!.params.get('return_url')).toBe('https://app.example.com/settings');

    const project = await vssJson(paid, ['billing', 'portal', '--project', paid.projectId]);
    expect(project.portal_url).toMatch(/^https:\/\/billing\.stripe\.test\/p\//);
    // The project got a customer of its own beside the organisation's.
    expect(stripe.requests.filter((q) => q.path === '/v1/customers')).toHaveLength(2);

    const bad = await vss(['billing', 'portal', '--return-url', 'ftp://example.com'], { env: paid.env });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^vss: BAD_REQUEST \(HTTP 400\): .*return_url/);
  });
});

describe('vss invitations', () => {
  it('invites, lists, revokes; the invitee redeems with their own account', async () => {
    const email = `invitee-${Date.now()}@example.com`;
    const password = 'invitee password';
    await register(email, password);

    const created = await run(['invitations', 'create', '--email', email, '--role', 'admin']);
    expect(created.code).toBe(0);
    const token = /^token\s+(\S+)$/m.exec(created.stdout)?.[1];
    expect(token).toBeDefined();
    expect(created.stdout).toMatch(/^accept_url\s+http:\/\/\S+\/invite\?token=\S+$/m);
    expect(created.stderr).toContain('shown this once');

    const listed = await run(['invitations', 'list']);
    expect(listed.stdout).toMatch(new RegExp(`\\s${email.replace(/\./g, '\\.')}\\s+admin\\s+open\\s`));
    expect(listed.stdout).not.toContain(token);

    const redeemed = await run(['invitations', 'redeem', token!], {
      VSS_EMAIL: email,
      VSS_PASSWORD: password,
    });
    expect(redeemed.code).toBe(0);
    expect(redeemed.stdout).toMatch(/ is now admin of organisation /);
    const members = (await api(server, 'GET', '/v1/members')).data as Array<{ email: string; role: string }>;
    expect(members.find((m) => m.email === email)?.role).toBe('admin');
    const after = await vssJson(server, ['invitations', 'list']);
    expect(after.find((i: { email: string }) => i.email === email).accepted_at).not.toBeNull();

    const second = await vssJson(server, [
      'invitations',
      'create',
      '--email',
      'later@example.com',
      '--role',
      'member',
    ]);
    const revoked = await run(['invitations', 'revoke', second.id]);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toBe(`revoked ${second.id}\n`);
    expect((await vssJson(server, ['invitations', 'list'])).map((i: { id: string }) => i.id)).not.toContain(
      second.id,
    );
  });

  it('refuses bad input: missing or unknown role (exit 2), a bad email and an unknown id (exit 1), a wrong key', async () => {
    const noRole = await run(['invitations', 'create', '--email', 'x@example.com']);
    expect(noRole.code).toBe(2);
    expect(noRole.stderr).toContain("required option '--role <role>' not specified");

    const owner = await run(['invitations', 'create', '--email', 'x@example.com', '--role', 'owner']);
    expect(owner.code).toBe(2);
    expect(owner.stderr).toContain('Allowed choices are admin, member');

    const email = await run(['invitations', 'create', '--email', 'not an email', '--role', 'member']);
    expect(email.code).toBe(1);
    expect(email.stderr).toMatch(/^vss: BAD_REQUEST \(HTTP 400\): .*email/);

    const unknown = await run(['invitations', 'revoke', randomUUID()]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^vss: NOT_FOUND \(HTTP 404\): /);

    const wrong = await run(['invitations', 'list'], { VSS_API_KEY: 'sk_live_wrong' });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/^vss: UNAUTHORIZED \(HTTP 401\): /);
  });
});
