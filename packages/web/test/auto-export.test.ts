import type { Browser, Page } from 'playwright-core';
import { expect, it } from 'vitest';
import {
  describeBrowser,
  newContext,
  poll,
  screenshot,
  signUp,
  type Vss,
  useBrowserApp,
} from './support/browser.js';

describeBrowser("a project's auto-export, set in the dashboard", () => {
  let vss: Vss;
  let browser: Browser;
  useBrowserApp((v, b) => {
    vss = v;
    browser = b;
  });

  /** Opens the projects page and the auto-export settings of the Default project. */
  async function openSettings(page: Page) {
    await page.getByRole('link', { name: 'Projects' }).click();
    await page.getByRole('button', { name: 'Auto-export settings of Default' }).click();
    const form = page.getByRole('form', { name: 'Export every session automatically' });
    await form.waitFor();
    return form;
  }

  it('turns it on with chosen settings, which are kept after a reload; a failure is said in words', async () => {
    const context = await newContext(browser, vss.base);
    const page = await context.newPage();
    try {
      await signUp(page);
      let form = await openSettings(page);
      const enabled = form.getByLabel('Export every session of this project automatically');
      expect(await enabled.isChecked()).toBe(false);
      // Off: the settings wait, greyed out.
      expect(await form.getByLabel('Layout').isDisabled()).toBe(true);
      await enabled.check();
      await form.getByLabel('Layout').selectOption('speaker');
      await form.getByLabel('Orientation').selectOption('vertical');
      await form.getByLabel('Resolution').selectOption('1080p');
      await form.getByLabel('Show each person’s name on their picture').uncheck();
      await form.getByRole('button', { name: 'Save export settings' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: 'Every session of this project will be exported' })
        .waitFor();

      // What the API now holds.
      const projectId = ((await (await page.request.get('/v1/projects')).json()) as any).data[0].id;
      const preset = ((await (await page.request.get(`/v1/projects/${projectId}/auto-export`)).json()) as any)
        .data;
      expect(preset).toMatchObject({
        enabled: true,
        options: {
          format: 'mp4',
          layout: 'speaker',
          orientation: 'vertical',
          resolution: '1080p',
          names: false,
          keep_gaps: false,
        },
      });

      // Kept after a reload.
      await page.reload();
      form = await openSettings(page);
      await poll(() =>
        form.getByLabel('Export every session of this project automatically').isChecked(),
      ).toBe(true);
      expect(await form.getByLabel('Layout').inputValue()).toBe('speaker');
      expect(await form.getByLabel('Orientation').inputValue()).toBe('vertical');
      expect(await form.getByLabel('Resolution').inputValue()).toBe('1080p');
      expect(await form.getByLabel('Show each person’s name on their picture').isChecked()).toBe(false);
      expect(await form.getByLabel('Keep paused parts (silent, showing names)').isChecked()).toBe(false);
      // Audio only: the picture's settings do not apply, and say so.
      await form.getByLabel('Format').selectOption('m4a');
      expect(await form.getByLabel('Layout').isDisabled()).toBe(true);
      await form.getByText('Not used for audio only').waitFor();
      await form.getByLabel('Format').selectOption('mp4');
      await screenshot(page, 'auto-export', true);

      // The server out of reach: said in words, and nothing changed.
      await context.setOffline(true);
      await form.getByLabel('Layout').selectOption('grid');
      await form.getByRole('button', { name: 'Save export settings' }).click();
      await form.getByRole('alert').filter({ hasText: 'the server could not be reached' }).waitFor();
      await context.setOffline(false);
      const after = ((await (await page.request.get(`/v1/projects/${projectId}/auto-export`)).json()) as any)
        .data;
      expect(after).toEqual(preset);
    } finally {
      await context.close();
    }
  });
});
