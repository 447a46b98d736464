import type { Browser, Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { pkce, postMcp, redirectReceiver } from '../../server/test/support/mcp.js';
import { receiver, verifies, verifiesStandard } from '../../server/test/support/webhooks.js';
import {
  describeBrowser,
  newContext,
  screenshot,
  signUp,
  type Vss,
  useBrowserApp,
} from './support/browser.js';

/** How long a poll waits for what the server does in the background (deliveries, navigation). */
const SOON = { timeout: 15_000 };

describeBrowser('webhooks, API keys and agent access, managed in a browser', () => {
  let vss: Vss;
  let browser: Browser;
  useBrowserApp((v, b) => {
    vss = v;
    browser = b;
  });

  const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` });
  const tools = (secret: string) =>
    postMcp(vss.base, bearer(secret), { jsonrpc: '2.0', id: 1, method: 'tools/list' });
  const callTool = (secret: string, name: string) =>
    postMcp(vss.base, bearer(secret), {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name, arguments: {} },
    });
  /** The focused element as a person would name it: its tag and its accessible label or text. */
  const focused = (page: Page) =>
    page.evaluate(() => {
      const e = document.activeElement;
      return `${e?.tagName} ${e?.getAttribute('aria-label') ?? e?.textContent?.trim()}`;
    });
  /** The secret shown once on the page. */
  const shownSecret = async (page: Page) => (await page.getByTestId('secret').textContent())!.trim();

  it('creates a webhook (secret once), logs a signed test delivery, explains bad input, pauses, resumes, rotates', async () => {
    const hook = await receiver();
    const context = await newContext(browser, vss.base);
    const page = await context.newPage();
    try {
      await signUp(page);
      await page.getByRole('link', { name: 'Webhooks' }).click();
      await page.getByText('No webhooks yet').waitFor();
      const form = page.getByRole('form', { name: 'New webhook' });

      // Bad input: the address stopped by the browser, no events explained in plain words; nothing is created.
      await form.getByLabel('Endpoint URL').fill('not a url');
      await form.getByRole('button', { name: 'Add webhook' }).click();
      expect(
        await form.getByLabel('Endpoint URL').evaluate((e: HTMLInputElement) => e.validationMessage),
      ).not.toBe('');
      await form.getByLabel('Endpoint URL').fill(hook.url);
      await form.getByRole('checkbox', { name: /session\.ended/ }).uncheck();
      await form.getByRole('checkbox', { name: /recording\.ready/ }).uncheck();
      await form.getByRole('button', { name: 'Add webhook' }).click();
      await expect
        .poll(() => form.getByRole('alert').textContent(), SOON)
        .toMatch(/^Events needs at least one/);
      const none = await page.request.get('/v1/webhooks?include_inactive=true');
      expect((await none.json()).data).toEqual([]);

      await form.getByRole('checkbox', { name: /session\.created/ }).check();
      await form.getByLabel('Description').fill('local receiver');
      await form.getByRole('button', { name: 'Add webhook' }).click();
      const secret = await shownSecret(page);
      expect(secret).toMatch(/^whsec_/);
      await page.getByRole('button', { name: 'Done' }).click();
      await expect.poll(() => page.getByTestId('secret').count(), SOON).toBe(0);
      await page.getByRole('link', { name: hook.url }).click();
      await page.getByRole('heading', { name: 'Webhook', exact: true }).waitFor();
      await expect.poll(() => page.getByText(secret).count(), SOON).toBe(0);

      // A test event: its attempt appears in the log, and the receiver got it signed with the secret.
      await page.getByRole('button', { name: 'Send test' }).click();
      const log = page.getByRole('table', { name: /Delivery attempts/ });
      const row = log.getByRole('row').filter({ hasText: 'webhook.test' });
      await row.getByText('succeeded').waitFor();
      await expect.poll(() => row.textContent(), SOON).toContain('200');
      expect(hook.hits).toHaveLength(1);
      expect(hook.hits[0]!.body).toMatchObject({ type: 'webhook.test' });
      expect(verifies(secret, hook.hits[0]!)).toBe(true);
      expect(verifiesStandard(secret, hook.hits[0]!)).toBe(true);
      await screenshot(page, 'webhook');

      const id = new URL(page.url()).pathname.split('/').at(-1)!;
      const active = async () => (await (await page.request.get(`/v1/webhooks/${id}`)).json()).data.is_active;
      await page.getByRole('button', { name: 'Pause' }).click();
      await page.getByRole('button', { name: 'Resume' }).waitFor();
      await page.getByText('paused', { exact: true }).waitFor();
      expect(await active()).toBe(false);
      await page.getByRole('button', { name: 'Resume' }).click();
      await page.getByRole('button', { name: 'Pause' }).waitFor();
      expect(await active()).toBe(true);

      // Rotation: a new secret, shown once; the next delivery is signed with it, not the old one.
      await page.getByRole('button', { name: 'Rotate secret' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Rotate secret' }).click();
      const rotated = await shownSecret(page);
      expect(rotated).toMatch(/^whsec_/);
      expect(rotated).not.toBe(secret);
      await page.getByRole('button', { name: 'Send test' }).click();
      await expect.poll(() => row.getByText('succeeded').count(), SOON).toBe(2);
      expect(hook.hits).toHaveLength(2);
      expect(verifies(rotated, hook.hits[1]!)).toBe(true);
      expect(verifies(secret, hook.hits[1]!)).toBe(false);

      // An edit with a bad address is refused, and the webhook keeps its own.
      await page.getByText('Edit the address, events or description').click();
      const edit = page.getByRole('form', { name: 'Edit webhook' });
      await edit.getByLabel('Endpoint URL').fill('ftp://example.com/hook');
      await edit.getByRole('button', { name: 'Save changes' }).click();
      expect(
        await edit.getByLabel('Endpoint URL').evaluate((e: HTMLInputElement) => e.validationMessage),
      ).not.toBe('');
      expect((await (await page.request.get(`/v1/webhooks/${id}`)).json()).data.url).toBe(hook.url);

      await page.getByRole('button', { name: 'Delete' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Delete webhook' }).click();
      await page.getByText('No webhooks yet').waitFor();
    } finally {
      await context.close();
      await hook.close();
    }
  });

  it('shows an API key and a restricted key once; each works as its kind allows until deleted', async () => {
    const context = await newContext(browser, vss.base);
    const page = await context.newPage();
    await signUp(page);
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('heading', { name: 'Project API keys' }).waitFor();

    const keys = page.getByRole('region', { name: 'Project API keys' });
    await keys.getByLabel('API key label').fill('backend');
    await keys.getByRole('button', { name: 'Create API key' }).click();
    const secret = await shownSecret(page);
    expect(secret).toMatch(/^sk_live_/);
    // Focus moves to the secret as it appears, so that it is read out and "Copy" is next.
    await expect.poll(() => focused(page), SOON).toBe('DIV Secret of the new API key');
    await screenshot(page, 'keys');
    const sessions = () => fetch(`${vss.base}/v1/sessions`, { headers: bearer(secret) });
    expect((await sessions()).status).toBe(200);
    await keys.getByRole('button', { name: 'Done' }).click();
    const row = keys.getByRole('row').filter({ hasText: 'backend' });
    await row.getByText(`${secret.slice(0, 12)}…`).waitFor();
    await page.reload();
    await row.waitFor();
    expect(await page.getByTestId('secret').count()).toBe(0);
    expect(await page.content()).not.toContain(secret);
    // The key was used above: its row says when.
    expect(await row.getByRole('cell').nth(4).textContent()).not.toBe('never');

    // While renamed, the row is found by its prefix: the label is in the text field.
    const byPrefix = keys.getByRole('row').filter({ hasText: secret.slice(0, 12) });
    // The field takes focus as it replaces the button; Cancel and Save give it back to the button.
    await row.getByRole('button', { name: 'Rename backend' }).click();
    await expect.poll(() => focused(page), SOON).toBe('INPUT New label for backend');
    await byPrefix.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => focused(page), SOON).toBe('BUTTON Rename backend');
    await row.getByRole('button', { name: 'Rename backend' }).click();
    await byPrefix.getByLabel('New label for backend').fill('billing backend');
    await byPrefix.getByRole('button', { name: 'Save' }).click();
    const renamed = keys.getByRole('row').filter({ hasText: 'billing backend' });
    await renamed.waitFor();
    await expect.poll(() => focused(page), SOON).toBe('BUTTON Rename billing backend');
    // A dialog gives focus back to its opener; when that went with the deleted row, to the page's heading.
    await renamed.getByRole('button', { name: 'Delete billing backend' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => focused(page), SOON).toBe('BUTTON Delete billing backend');
    await renamed.getByRole('button', { name: 'Delete billing backend' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete key' }).click();
    await keys.getByText('No API keys yet').waitFor();
    await expect.poll(() => focused(page), SOON).toBe('H1 API keys');
    expect((await sessions()).status).toBe(401);

    // A restricted key creates sessions and nothing more.
    const restricted = page.getByRole('region', { name: 'Restricted keys' });
    await restricted.getByLabel('Restricted key label').fill('kiosk');
    await restricted.getByRole('button', { name: 'Create restricted key' }).click();
    const rk = await shownSecret(page);
    expect(rk).toMatch(/^rk_live_/);
    const create = () =>
      fetch(`${vss.base}/v1/sessions`, {
        method: 'POST',
        headers: { ...bearer(rk), 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'from the kiosk' }),
      });
    expect((await create()).status).toBe(201);
    expect((await fetch(`${vss.base}/v1/sessions`, { headers: bearer(rk) })).status).toBe(403);
    await restricted.getByRole('button', { name: 'Done' }).click();
    await expect.poll(() => page.getByTestId('secret').count(), SOON).toBe(0);
    await restricted.getByRole('button', { name: 'Delete kiosk' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete key' }).click();
    await restricted.getByText('No restricted keys yet').waitFor();
    expect((await create()).status).toBe(401);
    await context.close();
  });

  it('grants an MCP client access on the consent page after signing in there, and revokes it on the Agents page', async () => {
    const redirect = await redirectReceiver();
    const owner = await newContext(browser, vss.base);
    const visitor = await newContext(browser, vss.base);
    try {
      const email = await signUp(await owner.newPage());
      const project = await owner.request.post('/v1/projects', { data: { name: 'Agents lab' } });
      expect(project.status()).toBe(201);
      const registered = await fetch(`${vss.base}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'Test Agent', redirect_uris: [redirect.url] }),
      });
      const clientId = ((await registered.json()) as { client_id: string }).client_id;
      const { verifier, challenge } = pkce();
      const query = new URLSearchParams({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: redirect.url,
        code_challenge: challenge,
        code_challenge_method: 'S256',
        scope: 'mcp:read mcp:write',
        state: 'xyz',
      }).toString();

      // Not signed in: the page says so, and signing in brings the person back to it.
      const page = await visitor.newPage();
      await page.goto(`/oauth/authorize?${query}`);
      await page.getByRole('heading', { name: 'Sign in to continue' }).waitFor();
      await page.getByRole('link', { name: 'Sign in' }).click();
      await expect.poll(() => new URL(page.url()).pathname, SOON).toBe('/login');
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill('a long passphrase');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Allow an application to act for you?' }).waitFor();
      const back = new URL(page.url());
      expect(back.pathname).toBe('/oauth/authorize');
      expect([...back.searchParams]).toEqual([...new URLSearchParams(query)]);
      await page.getByText('Test Agent', { exact: true }).waitFor();
      await page.getByLabel('Project it may act on').selectOption({ label: 'Agents lab' });
      await screenshot(page, 'consent');
      await page.getByRole('button', { name: 'Allow' }).click();
      await expect.poll(() => redirect.hits.length, SOON).toBe(1);
      expect(redirect.hits[0]!.get('state')).toBe('xyz');

      const exchanged = await fetch(`${vss.base}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code: redirect.hits[0]!.get('code')!,
          code_verifier: verifier,
          client_id: clientId,
          redirect_uri: redirect.url,
        }).toString(),
      });
      expect(exchanged.status).toBe(200);
      const token = ((await exchanged.json()) as { access_token: string }).access_token;
      const listed = await tools(token);
      expect(listed.status).toBe(200);
      const names = ((await listed.json()) as any).result.tools.map((t: { name: string }) => t.name);
      expect(names).toContain('list_sessions');
      expect((await callTool(token, 'list_sessions')).status).toBe(200);

      // The grant, for the chosen project, and its call in the activity log; revoked from there.
      await page.goto('/agents');
      const grants = page.getByRole('region', { name: 'OAuth grants' });
      const grant = grants.getByRole('row').filter({ hasText: 'Test Agent' });
      await grant.getByText('Agents lab').waitFor();
      const activity = page.getByRole('region', { name: 'Agent activity' });
      await activity
        .getByRole('row')
        .filter({ hasText: 'Test Agent (OAuth)' })
        .getByText('list_sessions')
        .waitFor();
      await grant.getByRole('button', { name: 'Revoke Test Agent' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Revoke access' }).click();
      await grants.getByText('No applications allowed').waitFor();
      expect((await tools(token)).status).toBe(401);
    } finally {
      await owner.close();
      await visitor.close();
      await redirect.close();
    }
  });

  it('creates an agent token that works on /mcp until deleted; an out-of-range expiry is explained', async () => {
    const context = await newContext(browser, vss.base);
    const page = await context.newPage();
    await signUp(page);
    await page.getByRole('link', { name: 'Agents' }).click();
    await page.getByRole('heading', { name: 'Connect an MCP client' }).waitFor();
    await page.getByText(`${vss.base}/mcp`, { exact: true }).waitFor();

    const form = page.getByRole('form', { name: 'New agent token' });
    await form.getByLabel('Token label').fill('assistant');
    await form.getByLabel('Expires in days').fill('400');
    await form.getByRole('button', { name: 'Create agent token' }).click();
    expect(
      await form.getByLabel('Expires in days').evaluate((e: HTMLInputElement) => e.validationMessage),
    ).not.toBe('');
    expect(await page.getByTestId('secret').count()).toBe(0);
    await form.getByLabel('Expires in days').fill('30');
    await form.getByRole('checkbox', { name: /mcp:write/ }).check();
    await form.getByRole('button', { name: 'Create agent token' }).click();
    const secret = await shownSecret(page);
    expect(secret).toMatch(/^sat_/);
    expect((await tools(secret)).status).toBe(200);
    expect((await callTool(secret, 'list_sessions')).status).toBe(200);
    await page.getByRole('button', { name: 'Done' }).click();

    const tokens = page.getByRole('region', { name: 'Agent tokens' });
    const row = tokens.getByRole('row').filter({ hasText: 'assistant' });
    await row.getByText('mcp:read, mcp:write').waitFor();
    const activity = page.getByRole('region', { name: 'Agent activity' });
    await activity.getByRole('button', { name: 'Refresh' }).click();
    await activity
      .getByRole('row')
      .filter({ hasText: 'token assistant' })
      .getByText('list_sessions')
      .waitFor();
    // The tokens, grants and activity together (the sticky top bar would hide the heading).
    await page.setViewportSize({ width: 1280, height: 1000 });
    await tokens.getByRole('heading', { name: 'Agent tokens' }).evaluate((h) => {
      h.scrollIntoView();
      window.scrollBy(0, -70);
    });
    await screenshot(page, 'agents');

    await row.getByRole('button', { name: 'Delete assistant' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete token' }).click();
    await tokens.getByText('No agent tokens yet').waitFor();
    expect((await tools(secret)).status).toBe(401);
    await context.close();
  });
});
