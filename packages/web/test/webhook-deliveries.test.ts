import type { Browser } from 'playwright-core';
import { expect, it } from 'vitest';
import { receiver, verifies } from '../../server/test/support/webhooks.js';
import {
  describeBrowser,
  fitsPhone,
  newContext,
  signUp,
  type Vss,
  useBrowserApp,
} from './support/browser.js';

/** How long a poll waits for what the server does in the background (deliveries, refreshes). */
const SOON = { timeout: 15_000 };
/** Where the picture of the page is left to be looked at (not a tracked file). */
const PICTURE = process.env.VSS_DELIVERIES_SCREENSHOT ?? '/tmp/vss-webhook-deliveries.png';

describeBrowser('a webhook’s delivery log in a browser', () => {
  let vss: Vss;
  let browser: Browser;
  useBrowserApp((v, b) => {
    vss = v;
    browser = b;
  });

  it('opens a delivery on its payload, sends it again and shows the new attempt; says errors in words', async () => {
    // The first request is refused (its retry is minutes away); the one sent again is taken.
    const hook = await receiver(0, (_h, i) => (i === 0 ? 500 : 200));
    const context = await newContext(browser, vss.base);
    const page = await context.newPage();
    try {
      await signUp(page);
      await page.getByRole('link', { name: 'Webhooks' }).click();
      const form = page.getByRole('form', { name: 'New webhook' });
      // The new event types are offered, each with what it means.
      await expect.poll(() => form.getByRole('checkbox', { name: /export\.failed/ }).count(), SOON).toBe(1);
      expect(await form.getByText('export.failed', { exact: true }).locator('..').textContent()).toContain(
        'an MP4 export could not be made',
      );
      expect(await form.getByText('recording.failed', { exact: true }).locator('..').textContent()).toContain(
        'could not be made ready or stored',
      );
      await form.getByLabel('Endpoint URL').fill(hook.url);
      await form.getByRole('checkbox', { name: /export\.failed/ }).check();
      await form.getByRole('button', { name: 'Add webhook' }).click();
      const secret = (await page.getByTestId('secret').textContent())!.trim();
      await page.getByRole('button', { name: 'Done' }).click();
      await page.getByRole('link', { name: hook.url }).click();
      await page.getByRole('heading', { name: 'Webhook', exact: true }).waitFor();
      const webhookId = new URL(page.url()).pathname.split('/').at(-1)!;

      // A test event, refused by the endpoint: the log says so in words.
      await page.getByRole('button', { name: 'Send test' }).click();
      const log = page.getByRole('table', { name: /Delivery attempts/ });
      const first = log.getByRole('row').filter({ hasText: 'webhook.test' }).first();
      await first.getByText('failed').waitFor(SOON);
      expect(await first.textContent()).toContain('Your endpoint answered 500: it had a problem of its own.');

      // Opened, it shows the body that was sent, as JSON a person can read.
      const show = first.getByRole('button', { name: /^Show the payload of webhook\.test, attempt 1/ });
      expect(await show.getAttribute('aria-expanded')).toBe('false');
      await show.click();
      const hide = log.getByRole('button', { name: /^Hide the payload of webhook\.test, attempt 1/ });
      expect(await hide.getAttribute('aria-expanded')).toBe('true');
      const payload = page.getByLabel('Payload of webhook.test', { exact: true });
      const shown = JSON.parse((await payload.textContent())!);
      expect(shown).toEqual(hook.hits[0]!.body);
      expect(shown).toMatchObject({ type: 'webhook.test', data: { webhook_id: webhookId } });
      expect(await payload.textContent()).toContain(`\n  "type": "webhook.test",\n`);

      // Sent again: the new attempt is at the top of the log, marked, and turns to succeeded.
      await page.getByRole('button', { name: 'Send again' }).click();
      await page.getByRole('status').filter({ hasText: 'Sent again at' }).waitFor(SOON);
      const again = log.getByRole('row').filter({ hasText: 'sent again' });
      await again.getByText('succeeded').waitFor(SOON);
      await expect.poll(() => again.textContent(), SOON).toContain('200');
      // Newest first: the attempt sent again heads the log, above the one it sent again.
      const rows = log.locator('tbody > tr');
      expect(await rows.first().textContent()).toContain('sent again');
      expect(hook.hits).toHaveLength(2);
      expect(hook.hits[1]!.headers['x-service-event-id']).toBe(hook.hits[0]!.headers['x-service-event-id']);
      expect(hook.hits[1]!.raw.equals(hook.hits[0]!.raw)).toBe(true);
      expect(verifies(secret, hook.hits[1]!)).toBe(true);
      // The original keeps its own retry, still scheduled.
      const listed = (await (await page.request.get(`/v1/webhooks/${webhookId}/deliveries`)).json()).data;
      expect(listed.map((d: any) => [d.status, d.redelivery_of !== null])).toEqual([
        ['succeeded', true],
        ['failed', false],
      ]);
      expect(listed[1].next_attempt_at).not.toBeNull();

      // Opened too, the new attempt says it was sent by hand and shows the same payload.
      await again
        .getByRole('button', { name: /^Show the payload of webhook\.test, attempt 1 \(sent again\)/ })
        .click();
      await page.getByText('sent again by hand: one attempt, not retried if it fails.').waitFor(SOON);
      // Tall enough for the whole page, so that no scrolling moves the sticky header in the picture.
      await page.setViewportSize({ width: 1280, height: 1600 });
      await page.screenshot({ path: PICTURE });
      expect(await fitsPhone(page)).toBe(true);
      await page.setViewportSize({ width: 1280, height: 800 });

      // Sending again a delivery whose webhook was deleted meanwhile: said in words, not as a code.
      const deleted = await page.request.delete(`/v1/webhooks/${webhookId}`, {
        headers: { origin: vss.base },
      });
      expect(deleted.status()).toBe(200);
      await page.getByRole('button', { name: 'Send again' }).first().click();
      await expect
        .poll(() => log.getByRole('alert').first().textContent(), SOON)
        .toBe('This webhook no longer exists: it may have been deleted.');
      expect(hook.hits).toHaveLength(2);
    } finally {
      await context.close();
      await hook.close();
    }
  });
});
