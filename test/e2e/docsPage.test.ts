import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { launchChromium } from './browser.js';

/**
 * The API reference at /docs in a real browser, under the Content-Security-Policy it is served
 * with: the search box filters the operations, every parameter has its name (the shared
 * Idempotency-Key header included), and each operation shows curl and SDK snippets and examples.
 */
let t: TestApp;
let browser: Browser;
let page: Page;
const problems: string[] = [];

beforeAll(async () => {
  t = await createTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.server.address() as AddressInfo;
  browser = await launchChromium();
  page = await browser.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(String(error)));
  await page.goto(`http://127.0.0.1:${port}/docs`);
  await page.waitForSelector('#search');
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/** The operations listed in the navigation that are visible, as "METHOD path". */
async function visibleOperations(): Promise<string[]> {
  return page.$$eval('#ops a', (links) =>
    links
      .filter((a) => (a as unknown as { offsetParent: unknown }).offsetParent !== null)
      .map((a) => `${a.querySelector('.method')?.textContent} ${a.lastChild?.textContent}`),
  );
}

async function search(text: string): Promise<void> {
  await page.fill('#search', text);
}

describe('/docs in Chromium', () => {
  it('lists every operation and webhook until something is typed', async () => {
    const all = await visibleOperations();
    expect(all.length).toBeGreaterThan(70);
    expect(all).toContain('POST /tasks');
    expect(all).toContain('EVENT task.completed');
    expect(problems).toEqual([]);
  });

  it('the search box keeps the operations every typed word is in, in the list and the page', async () => {
    await search('complete');
    const found = await visibleOperations();
    expect(found).toContain('POST /tasks/{id}/complete');
    expect(found).not.toContain('POST /tasks');
    expect(found.length).toBeLessThan(20);
    const sections = await page.$$eval('section.op', (all) =>
      all
        .filter((s) => (s as unknown as { offsetParent: unknown }).offsetParent !== null)
        .map((s) => s.querySelector('h3')?.textContent),
    );
    expect(sections).toHaveLength(found.length);
    expect(await page.textContent('#search-count')).toMatch(/^\d+ of \d+ match$/);

    // Words narrow each other down; a parameter's name finds the operations that take it.
    await search('idempotency-key tasks');
    const keyed = await visibleOperations();
    expect(keyed).toEqual(expect.arrayContaining(['POST /tasks', 'POST /tasks/{id}/complete']));
    expect(keyed).not.toContain('GET /tasks/{id}');

    await search('no such thing anywhere');
    expect(await visibleOperations()).toEqual([]);
    expect(await page.textContent('#search-count')).toContain('Nothing matches');

    await search('');
    expect((await visibleOperations()).length).toBeGreaterThan(70);
    expect(problems).toEqual([]);
  });

  it('names every parameter, the Idempotency-Key header included, and shows curl and SDK snippets', async () => {
    const complete = page.locator('section.op', { has: page.locator('#op-completeTask') });
    const parameters = await complete.locator('table').first().locator('tr').allTextContents();
    expect(parameters.some((row) => row.startsWith('Idempotency-Key') && row.includes('header'))).toBe(true);
    const everyName = await page.$$eval('section.op td.name', (cells) =>
      cells.map((c) => c.textContent ?? ''),
    );
    expect(everyName.filter((name) => name === '' || name.startsWith('undefined'))).toEqual([]);
    const curl = await complete.locator('pre.curl').textContent();
    expect(curl).toContain('curl -sS -X POST "$BASE/tasks/$ID/complete"');
    expect(curl).toContain('-H "Authorization: Bearer $HANDOFF_API_KEY"');
    expect(curl).toContain('-H "Idempotency-Key: $(uuidgen)"');
    // The body is optional (an amount below the reward makes it a graded approval); its example is {}.
    expect(await complete.locator('pre.sdk').textContent()).toBe(
      "const { data, error } = await handoff.api.POST('/tasks/{id}/complete', { params: { path: { id } }, body: {} });",
    );

    const create = page.locator('section.op', { has: page.locator('#op-createTask') });
    const body = JSON.parse((await create.locator('pre.json').first().textContent()) ?? '');
    expect(body).toMatchObject({ title: 'Photo of the town hall', reward: '6.5' });
    expect(await create.locator('pre.curl').textContent()).toContain(`-d '${JSON.stringify(body)}'`);
    expect(await create.locator('pre.sdk').textContent()).toContain(`body: ${JSON.stringify(body)}`);
  });

  it('shows each response with its example, and every variant of a response that is one of several', async () => {
    const complete = page.locator('section.op', { has: page.locator('#op-completeTask') });
    const ok = JSON.parse((await complete.locator('details[open] pre.json').first().textContent()) ?? '');
    expect(ok).toHaveProperty('task');
    expect(await page.locator('text=/^One of \\d+:$/').count()).toBeGreaterThan(0);
    expect(problems).toEqual([]);
  });
});
