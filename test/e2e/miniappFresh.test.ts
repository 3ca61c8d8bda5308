import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createAgent, createTask, createWorker, type TestAgent } from '../helpers/fixtures.js';
import { requestRevision, submitOk } from '../helpers/submissionApi.js';
import { call } from '../helpers/workerApi.js';
import { launchChromium } from './browser.js';
import { explained, type MiniAppHost, openMiniApp, serveLocally } from './miniappHarness.js';
import { LIGHT_THEME, type TelegramUser } from './telegramHost.js';

/**
 * Issue 36, "fresh screens": a worker who keeps the Mini App open sees what the server says
 * without relaunching it. The screen re-reads when Telegram says the app is visible again, when
 * the page regains focus, after a chat message arrives, and every 15 s while visible
 * (web/miniapp/src/freshness.ts). Here the agent acts while the worker's screen is open, and the
 * test only brings the app back into view, as a worker switching back to Telegram does.
 */
let t: TestApp;
let origin: string;
let browser: Browser;
let agent: TestAgent;
const external: { url: string; type: string }[] = [];
const pageErrors: string[] = [];

beforeAll(async () => {
  t = await createTestApp();
  ({ origin } = await serveLocally(t, { publicUrl: true }));
  browser = await launchChromium();
  agent = await createAgent(t, { name: 'Street survey', deposit: '200' });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const host = (): MiniAppHost => ({ t, origin, browser, external, pageErrors });

/** Telegram telling the app it is in front again (Bot API 8.0 `visibility_changed`). */
const backInView = (page: Page) =>
  page.evaluate(`window.Telegram.WebView.receiveEvent('visibility_changed', { is_visible: true })`);

describe('the Mini App follows the server while it stays open (issue 36)', () => {
  it('an acceptance, a submission and a request for changes show up without a relaunch', async () => {
    const worker = await createWorker(t, { firstName: 'Lena' });
    const task = await createTask(t, agent, { title: 'Photograph the kiosk', reward: '3' });
    const applied = await call(t, 'POST', `/worker/tasks/${task.id}/applications`, worker.headers, {
      message: 'I live next door',
    });
    expect(applied.statusCode, applied.body).toBe(201);
    const user: TelegramUser = { id: worker.telegramId, first_name: 'Lena', language_code: 'en' };

    const opened = await openMiniApp(host(), {
      theme: LIGHT_THEME,
      user,
      locale: 'en-US',
      startParam: `task_${task.id}`,
      // The page's timers run only when the test moves its clock: the 15 s poll never fires by
      // itself here, so what shows up comes from the event the test sends.
      prepare: (p: Page) => p.clock.install({ time: t.clock.now() }),
    });
    const { page } = opened;
    try {
      await page.getByText('You applied. The agent will answer here and in Telegram.').waitFor();

      // The agent accepts while the worker looks at the task.
      const accepted = await t.app.inject({
        method: 'PATCH',
        url: `/applications/${applied.json().application.id}`,
        headers: agent.headers,
        payload: { status: 'ACCEPTED' },
      });
      expect(accepted.statusCode, accepted.body).toBe(200);
      await backInView(page);
      await page
        .getByText('The task is yours. Start when you are ready and submit the work before the deadline.')
        .waitFor();
      expect(await page.getByText('You applied.', { exact: false }).count()).toBe(0);

      // Work handed in, then the agent asks for changes; the page regains focus.
      await submitOk(t, worker, task.id, { note: 'Two photos of the kiosk' });
      await backInView(page);
      await page.getByText('Your work is with the agent for review.').waitFor();
      const revision = await requestRevision(t, agent, task.id, 'The sign is cut off; please include it');
      expect(revision.statusCode, revision.body).toBe(201);
      await page.evaluate(`window.dispatchEvent(new Event('focus'))`);
      await page.clock.runFor(400);
      await page
        .getByText('The agent asked for changes. Read the reason below, then submit the work again.')
        .waitFor();
      await page.getByText('The sign is cut off; please include it').first().waitFor();
    } catch (error) {
      throw await explained(host(), error, page);
    } finally {
      await opened.context.close();
    }
  }, 180_000);
});
