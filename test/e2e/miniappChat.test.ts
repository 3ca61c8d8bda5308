import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendDueTransfers } from '../../src/domain/money/payouts.js';
import type { TestApp } from '../helpers/app.js';
import { FaultyChain } from '../helpers/faultyChain.js';
import {
  assignedTask,
  createAgent,
  createWorker,
  type TestAgent,
  type TestWorker,
} from '../helpers/fixtures.js';
import { createUnthrottledTestApp } from '../helpers/moneyChecks.js';
import { call } from '../helpers/workerApi.js';
import { checkScreen } from './axe.js';
import { launchChromium } from './browser.js';
import {
  expectMainButton,
  explained,
  imagesLoaded,
  lastEvent,
  type MiniAppHost,
  openMiniApp,
  PHONE,
  pressBackButton,
  pressMainButton,
  receive,
  screenshotsDir,
  serveLocally,
  shot,
} from './miniappHarness.js';
import { photoPng } from './photos.js';
import { DARK_THEME, LIGHT_THEME, type TelegramUser } from './telegramHost.js';

/**
 * The Mini App's chat screen, unread badges, earnings and the work screens, in Chromium at
 * 360 px, light and dark, English and Russian: the composer stays at the bottom of the viewport,
 * the view ends on the newest message after sending and after the agent's message arrives,
 * images open full screen, files are chips with their size, links open through Telegram, the
 * unread count appears and clears; earnings split paid from pending, with the agents' comments.
 */
const SCREENSHOTS = screenshotsDir();
const LINK = 'https://example.com/route?from=square';
const AXE_PATH = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

let t: TestApp;
let origin: string;
let browser: Browser;
let chain: FaultyChain;
let agent: TestAgent;
const external: { url: string; type: string }[] = [];
const pageErrors: string[] = [];
const host = (): MiniAppHost => ({ t, origin, browser, external, pageErrors });

/** One worker with a task to chat about, one paid, one on the way, one in review, and ratings. */
interface Worker {
  worker: TestWorker;
  user: TelegramUser;
  chatTask: string;
  chatTitle: string;
}
let ana: Worker;
let ivan: Worker;

beforeAll(async () => {
  // Unthrottled: the agent writes more chat messages than its per-minute limit allows.
  t = await createUnthrottledTestApp({
    wrapChain: (inner) => {
      chain = new FaultyChain(inner);
      return chain;
    },
  });
  ({ origin } = await serveLocally(t, { publicUrl: true }));
  browser = await launchChromium();
  agent = await createAgent(t, { name: 'Survey Bot', deposit: '500' });
  ana = await workerWithMoney('Ana', 'en', {
    chat: 'Photograph the town hall',
    paid: 'Deliver the flyers',
    sending: 'Count the bikes',
    review: 'Check the shop hours',
    comment: 'Sharp photos and quick answers. Thank you!',
  });
  ivan = await workerWithMoney('Иван', 'ru', {
    chat: 'Сфотографировать ратушу',
    paid: 'Разнести листовки',
    sending: 'Посчитать велосипеды',
    review: 'Узнать часы работы магазина',
    comment: 'Отличные фото и быстрые ответы. Спасибо!',
  });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function workerWithMoney(
  firstName: string,
  language: string,
  titles: { chat: string; paid: string; sending: string; review: string; comment: string },
): Promise<Worker> {
  const worker = await createWorker(t, { firstName });
  const paid = await assignedTask(t, agent, worker, { title: titles.paid, reward: '4' });
  await agentCall('POST', `/tasks/${paid.taskId}/complete`);
  await sendDueTransfers(t.ctx);
  await agentCall('POST', `/tasks/${paid.taskId}/rate`, { score: 5, comment: titles.comment });
  // The chain is unreachable while this one completes: its payout is recorded, not confirmed.
  const sending = await assignedTask(t, agent, worker, { title: titles.sending, reward: '2.5' });
  chain.down = true;
  await agentCall('POST', `/tasks/${sending.taskId}/complete`);
  chain.down = false;
  const review = await assignedTask(t, agent, worker, { title: titles.review, reward: '1.25' });
  const submitted = await call(t, 'POST', `/worker/tasks/${review.taskId}/submissions`, worker.headers, {
    note: 'Open 9 to 18, closed on Sunday.',
  });
  expect(submitted.statusCode, submitted.body).toBe(201);
  const chat = await assignedTask(t, agent, worker, { title: titles.chat, reward: '6.5' });
  return {
    worker,
    user: { id: worker.telegramId, first_name: firstName, language_code: language },
    chatTask: chat.taskId,
    chatTitle: titles.chat,
  };
}

async function agentCall(method: 'GET' | 'POST', url: string, payload?: Record<string, unknown>) {
  const res = await call(t, method, url, agent.headers, payload);
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.json();
}

const agentSays = (taskId: string, content: string, fileUrl?: string) =>
  agentCall('POST', `/chat/${taskId}/messages`, { content, ...(fileUrl ? { fileUrl } : {}) });

/** The agent uploads a file (multipart, as an agent's code would) and returns its URL. */
async function agentUpload(name: string, type: string, bytes: Buffer): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([bytes], { type }), name);
  const res = await fetch(`${origin}/upload`, { method: 'POST', headers: agent.headers, body: form });
  expect(res.status).toBe(200);
  return ((await res.json()) as { fileUrl: string }).fileUrl;
}

const PDF = Buffer.from(`%PDF-1.4\n${'% brief for the task\n'.repeat(70)}%%EOF\n`);
const PHOTO = photoPng({ sky: [90, 150, 230], building: [190, 120, 90], seed: 1 });

/** A history to scroll: older messages yesterday, today's with a file, a photo and a link. */
const filled = new Set<string>();
async function fillChat(taskId: string, language: 'en' | 'ru') {
  if (filled.has(taskId)) return;
  filled.add(taskId);
  const en = language === 'en';
  for (let i = 1; i <= 14; i++) {
    await agentSays(
      taskId,
      en ? `Earlier note ${i}: the square is busy at noon.` : `Заметка ${i}: в полдень на площади людно.`,
    );
  }
  t.clock.advance(24 * 3_600_000);
  const pdf = await agentUpload(en ? 'brief.pdf' : 'задание.pdf', 'application/pdf', PDF);
  await agentSays(taskId, en ? 'Here is the brief.' : 'Вот задание.', pdf);
  const photo = await agentUpload('town-hall.png', 'image/png', PHOTO);
  await agentSays(taskId, en ? 'The front should look like this.' : 'Фасад должен выглядеть так.', photo);
  await agentSays(
    taskId,
    en ? `The way there: ${LINK}. <b>Not bold</b>` : `Маршрут: ${LINK}. <b>Не жирный</b>`,
  );
}

/** The composer's box and the viewport: its bottom edge on the viewport's bottom edge. */
async function composerBottom(page: Page): Promise<number> {
  const box = await page.getByRole('form', { name: /New message|Новое сообщение/ }).boundingBox();
  expect(box).not.toBeNull();
  return Math.round((box?.y ?? 0) + (box?.height ?? 0));
}

/** The message log is scrolled to its end (the newest message in view). */
async function expectAtNewest(page: Page, text: string) {
  await expect
    .poll(() =>
      page.evaluate(
        `(() => { const el = document.querySelector('.chat-log'); return el.scrollHeight - el.scrollTop - el.clientHeight; })()`,
      ),
    )
    .toBeLessThan(2);
  const last = page
    .getByRole('list', { name: /Messages|Сообщения/ })
    .getByRole('listitem')
    .last();
  await expect.poll(() => last.textContent()).toContain(text);
  const box = await last.boundingBox();
  expect((box?.y ?? 0) + (box?.height ?? 0)).toBeLessThanOrEqual(PHONE.height);
  expect(box?.y).toBeGreaterThan(0);
}

const unreadOf = async (worker: TestWorker) =>
  (await call(t, 'GET', '/worker/chats/unread', worker.headers)).json() as { total: number };

/**
 * Presses Telegram's main button on the task page, "Submit work" (in Russian once the task
 * page is translated; its words are another screen's).
 */
async function pressSubmitWork(page: Page) {
  await expect
    .poll(async () => {
      const button = await lastEvent(page, 'web_app_setup_main_button');
      return button?.is_visible === true && /^(Submit work|Сдать работу)$/.test(String(button.text));
    })
    .toBe(true);
  await receive(page, 'main_button_pressed');
}

/** The app as `who`, the page's clock at the server's (the messages' days are the server's). */
async function open(theme: 'light' | 'dark', who: Worker) {
  return openMiniApp(host(), {
    theme: theme === 'light' ? LIGHT_THEME : DARK_THEME,
    user: who.user,
    prepare: async (page) => {
      await page.context().clock.setFixedTime(t.clock.now());
      // axe-core as an init script: the app's Content-Security-Policy refuses the script tag
      // that checkScreen would otherwise add (init scripts are not subject to it).
      await page.addInitScript({ path: AXE_PATH });
    },
  });
}

async function step<T>(page: Page, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw await explained(host(), error, page);
  }
}

const screen = async (page: Page, name: string, theme: 'light' | 'dark', where: string) => {
  await imagesLoaded(page);
  await checkScreen(page, `${where} (${theme})`);
  await shot(page, SCREENSHOTS, name, theme);
};

describe('the chat screen', () => {
  it('opens from the task with its unread count, stays at the newest message, and clears the count', async () => {
    await fillChat(ana.chatTask, 'en');
    const { context, page } = await open('light', ana);
    await step(page, async () => {
      // The unread count: on the tab, on the task's row, on the task page's chat cell.
      const mine = page.getByRole('tab', { name: 'My tasks', exact: true });
      await expect.poll(() => mine.locator('.unread-badge').textContent()).toBe('17');
      await mine.click();
      const row = page.getByRole('button', { name: `Open task ${ana.chatTitle}` });
      await expect.poll(() => row.locator('.unread-badge').textContent()).toBe('17');
      await row.click();
      const cell = page.getByRole('button', { name: 'Chat with the agent' });
      await expect.poll(() => cell.locator('.unread-badge').textContent()).toBe('17');
      await cell.click();

      // Full height: the composer's bottom is the viewport's, and the view ends on the newest.
      await page.getByRole('heading', { name: ana.chatTitle, level: 1 }).waitFor();
      await page.getByText('messages arrive live').waitFor();
      await expectAtNewest(page, 'Not bold');
      expect(await composerBottom(page)).toBe(PHONE.height);
      // Seeing the newest message moved the read point: nothing is unread any more.
      await expect.poll(async () => (await unreadOf(ana.worker)).total).toBe(0);

      // Day separators, short times (no year, no "UTC").
      await page.getByText('Yesterday', { exact: true }).waitFor();
      await page.getByText('Today', { exact: true }).waitFor();
      const times = await page.locator('.bubble-time').allInnerTexts();
      expect(times.length).toBe(17);
      for (const time of times) expect(time).not.toMatch(/UTC|20\d\d/);
      for (const time of times.slice(14)) expect(time).toMatch(/^\d{1,2}:\d{2}( [AP]M)?$/);

      // The file is a chip with its size; the link opens through Telegram; HTML stays text.
      const size = new Intl.NumberFormat('en', {
        style: 'unit',
        unit: 'kilobyte',
        unitDisplay: 'short',
        maximumFractionDigits: 1,
      }).format(PDF.length / 1024);
      const chip = page.getByRole('link', {
        name: new RegExp(`^brief\\.pdf\\s?,\\s*${size.replace('.', '\\.')}$`),
      });
      await chip.waitFor();
      expect(await chip.getAttribute('download')).toBe('brief.pdf');
      const link = page.getByRole('link', { name: LINK });
      expect(await link.getAttribute('rel')).toContain('noopener');
      expect(await link.getAttribute('href')).toBe(LINK);
      await link.click();
      await expect.poll(() => lastEvent(page, 'web_app_open_link')).toMatchObject({ url: LINK });
      await page.getByText('<b>Not bold</b>', { exact: false }).waitFor();
      expect(await page.locator('.bubble b').count()).toBe(0);
      await screen(page, '6-chat', 'light', 'chat');

      // The image viewer: opens full screen, closes with its button, Escape and Telegram's back.
      const opener = page.getByRole('button', { name: 'Open image town-hall.png' });
      await opener.click();
      const viewer = page.getByRole('dialog', { name: 'Image town-hall.png' });
      await viewer.getByRole('img', { name: 'town-hall.png' }).waitFor();
      await screen(page, '6-chat-image', 'light', 'image viewer');
      await viewer.getByRole('button', { name: 'Close' }).click();
      await viewer.waitFor({ state: 'detached' });
      await opener.click();
      await viewer.waitFor();
      await page.keyboard.press('Escape');
      await viewer.waitFor({ state: 'detached' });
      await opener.click();
      await viewer.waitFor();
      await pressBackButton(page);
      await viewer.waitFor({ state: 'detached' });
      await page.getByRole('heading', { name: ana.chatTitle, level: 1 }).waitFor();

      // Sending: a draft asks before closing; the sent message is the newest, in view, and the
      // composer is still at the bottom.
      await page.getByLabel('Message', { exact: true }).fill('On my way to the square.');
      await expect
        .poll(() => lastEvent(page, 'web_app_setup_closing_behavior'))
        .toMatchObject({ need_confirmation: true });
      await page.getByRole('button', { name: 'Send', exact: true }).click();
      await expectAtNewest(page, 'On my way to the square.');
      expect(await composerBottom(page)).toBe(PHONE.height);
      await expect
        .poll(() => lastEvent(page, 'web_app_setup_closing_behavior'))
        .toMatchObject({ need_confirmation: false });

      // Receiving: the agent's message arrives live and the view follows it.
      await agentSays(ana.chatTask, 'Great, thank you! Wide angle please.');
      await expectAtNewest(page, 'Wide angle please.');
      expect(await composerBottom(page)).toBe(PHONE.height);
      await expect.poll(async () => (await unreadOf(ana.worker)).total).toBe(0);

      // An attachment from the worker: a chip with its size above the box, then in the chat.
      await page.getByLabel('Attach a file').setInputFiles({
        name: 'receipt.png',
        mimeType: 'image/png',
        buffer: PHOTO,
      });
      await page
        .getByRole('form', { name: 'New message' })
        .getByRole('link', { name: /^receipt\.png\s?,\s*\d/ })
        .waitFor();
      await page.getByRole('button', { name: 'Send', exact: true }).click();
      await page.getByRole('button', { name: 'Open image receipt.png' }).waitFor();
      await expectAtNewest(page, '');

      // Back on the task page and the list, the counts are gone.
      await pressBackButton(page);
      await page.getByRole('button', { name: 'Chat with the agent' }).waitFor();
      expect(await page.locator('.unread-badge').count()).toBe(0);
      await pressBackButton(page);
      await page.getByRole('tab', { name: 'My tasks', exact: true }).waitFor();
      expect(await page.locator('.unread-badge').count()).toBe(0);
    });
    await context.close();
  }, 240_000);
});

describe('earnings and the work screens', () => {
  it('shows paid and pending money per task with the agents’ comments, and Submit work on the main button', async () => {
    const { context, page } = await open('light', ana);
    await step(page, async () => {
      await page.getByRole('tab', { name: 'Earnings', exact: true }).click();
      const totals = page.getByRole('region', { name: 'Your money' });
      await totals.getByText('Paid', { exact: true }).waitFor();
      // Paid: the confirmed payout; pending: the one on its way and the one in review.
      const cell = (label: string) =>
        totals.locator('.cell', { has: page.getByText(label, { exact: true }) });
      await expect.poll(() => cell('Paid').locator('dd').textContent()).toBe('4\u00a0TON');
      await expect.poll(() => cell('Pending').locator('dd').textContent()).toBe('3.75\u00a0TON');
      await expect
        .poll(() => cell('On the way to your wallet').locator('dd').textContent())
        .toBe('2.5\u00a0TON');
      await expect.poll(() => cell('In review (1 task)').locator('dd').textContent()).toBe('1.25\u00a0TON');
      const rows = page.getByRole('region', { name: 'By task' });
      const row = (title: string) => rows.getByRole('listitem').filter({ hasText: title });
      await expect.poll(() => row('Deliver the flyers').textContent()).toMatch(/Paid/);
      await expect.poll(() => row('Count the bikes').textContent()).toMatch(/On the way/);
      await expect.poll(() => row('Check the shop hours').textContent()).toMatch(/In review/);
      const said = page.getByRole('region', { name: 'What agents said' });
      await said.getByText('Sharp photos and quick answers. Thank you!').waitFor();
      await said.getByRole('img', { name: '5 of 5 stars' }).waitFor();
      await screen(page, '8-earnings', 'light', 'earnings');

      // Submit work: the note and photos, sent from Telegram's main button.
      await page.getByRole('tab', { name: 'My tasks', exact: true }).click();
      await page.getByRole('button', { name: `Open task ${ana.chatTitle}` }).click();
      await pressMainButton(page, 'Submit work');
      await page.getByRole('heading', { name: 'Submit work', level: 1 }).waitFor();
      await page.getByLabel('What you did').fill('Three photos of the town hall, from the square.');
      await page.getByLabel('Add photos from the camera or gallery').setInputFiles({
        name: 'front.png',
        mimeType: 'image/png',
        buffer: PHOTO,
      });
      await page
        .getByRole('list', { name: 'Chosen photos' })
        .getByRole('img', { name: 'front.png' })
        .waitFor();
      await expectMainButton(page, 'Send for review');
      await expect
        .poll(() => lastEvent(page, 'web_app_setup_closing_behavior'))
        .toMatchObject({ need_confirmation: true });
      await screen(page, '10-submit-work', 'light', 'submit work');
    });
    await context.close();
  }, 180_000);

  it('shows the same screens dark, and in Russian, light and dark', async () => {
    await fillChat(ivan.chatTask, 'ru');
    for (const [who, theme, suffix] of [
      [ana, 'dark', ''],
      [ivan, 'light', '-ru'],
      [ivan, 'dark', '-ru'],
    ] as const) {
      const ru = suffix === '-ru';
      const { context, page } = await open(theme, who);
      await step(page, async () => {
        await page.getByRole('tab', { name: ru ? 'Мои задачи' : 'My tasks' }).click();
        await page.getByRole('button', { name: new RegExp(who.chatTitle) }).click();
        await page.getByRole('button', { name: ru ? 'Чат с агентом' : 'Chat with the agent' }).click();
        await page.getByRole('heading', { name: who.chatTitle, level: 1 }).waitFor();
        await page.getByText(ru ? 'сообщения приходят сразу' : 'messages arrive live').waitFor();
        await expectAtNewest(page, ru ? 'Не жирный' : '');
        expect(await composerBottom(page)).toBe(PHONE.height);
        if (ru) await page.getByText('Вчера', { exact: true }).waitFor();
        await screen(page, `6-chat${suffix}`, theme, 'chat');
        await page
          .getByRole('button', {
            name: ru ? 'Открыть изображение town-hall.png' : 'Open image town-hall.png',
          })
          .click();
        await page
          .getByRole('dialog')
          .getByRole('button', { name: ru ? 'Закрыть' : 'Close' })
          .waitFor();
        await screen(page, `6-chat-image${suffix}`, theme, 'image viewer');
        await page.keyboard.press('Escape');
        await page.getByRole('dialog').waitFor({ state: 'detached' });
        // The main button belongs to the task page: back from the chat first.
        await pressBackButton(page);
        await pressSubmitWork(page);
        await page.getByRole('heading', { level: 1, name: ru ? 'Сдать работу' : 'Submit work' }).waitFor();
        await page
          .getByLabel(ru ? 'Что вы сделали' : 'What you did')
          .fill(ru ? 'Три фото ратуши с площади.' : 'Three photos of the town hall.');
        await expectMainButton(page, ru ? 'Отправить на проверку' : 'Send for review');
        await screen(page, `10-submit-work${suffix}`, theme, 'submit work');
        await pressBackButton(page);
        await pressBackButton(page);
        await page.getByRole('tab', { name: ru ? 'Доход' : 'Earnings' }).click();
        await page
          .getByRole('region', { name: ru ? 'Ваши деньги' : 'Your money' })
          .getByText(ru ? 'Ожидается' : 'Pending')
          .waitFor();
        await page
          .getByText(
            ru ? 'Отличные фото и быстрые ответы. Спасибо!' : 'Sharp photos and quick answers. Thank you!',
          )
          .waitFor();
        await screen(page, `8-earnings${suffix}`, theme, 'earnings');
      });
      await context.close();
    }
  }, 300_000);
});
