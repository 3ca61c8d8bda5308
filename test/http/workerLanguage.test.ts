import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, workerAuth } from '../helpers/app.js';
import { call, workerMe } from '../helpers/workerApi.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

let nextId = 8_000_000 + randomInt(1_000_000);
const as = (telegramId: number, languageCode?: string) =>
  workerAuth(t, telegramId, 'Olga', undefined, languageCode);

describe("the worker's language", () => {
  it('comes from Telegram’s language_code at sign-in, normalised to a supported language', async () => {
    const cases: [string | undefined, string][] = [
      ['ru', 'ru'],
      ['ru-RU', 'ru'],
      ['RU', 'ru'],
      ['en-GB', 'en'],
      ['de', 'en'],
      ['xx-nonsense', 'en'],
      [undefined, 'en'],
    ];
    for (const [code, expected] of cases) {
      const worker = await workerMe(t, as(nextId++, code));
      expect(worker.language, `language_code ${code}`).toBe(expected);
    }
  });

  it('follows Telegram until the worker picks one, then stays', async () => {
    const id = nextId++;
    expect((await workerMe(t, as(id, 'ru'))).language).toBe('ru');
    // The worker switched Telegram to English: not chosen yet, so the app follows.
    expect((await workerMe(t, as(id, 'en'))).language).toBe('en');

    const res = await call(t, 'PATCH', '/worker/me', as(id, 'en'), { language: 'ru' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().worker.language).toBe('ru');
    // Chosen: Telegram's English no longer changes it, nor does any other sign-in.
    expect((await workerMe(t, as(id, 'en'))).language).toBe('ru');
    const row = await t.ctx.db
      .selectFrom('workers')
      .select(['language', 'language_chosen'])
      .where('telegram_id', '=', String(id))
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ language: 'ru', language_chosen: 1 });

    // And back, by choice.
    const back = await call(t, 'PATCH', '/worker/me', as(id, 'ru'), { language: 'en' });
    expect(back.json().worker.language).toBe('en');
    expect((await workerMe(t, as(id, 'ru'))).language).toBe('en');
  });

  it('refuses a language there are no messages for, naming the supported ones, and changes nothing', async () => {
    const id = nextId++;
    const headers = as(id, 'ru');
    await workerMe(t, headers);
    for (const language of ['de', 'RU', 'ru-RU', '', 'en ', 'x'.repeat(21)]) {
      const res = await call(t, 'PATCH', '/worker/me', headers, { language, headline: 'Changed' });
      expect(res.statusCode, `${language}: ${res.body}`).toBe(400);
      expect(res.body).toMatch(/language/);
      if (language.length <= 20) expect(res.json().details?.[0]?.message ?? res.body).toMatch(/en, ru/);
    }
    for (const language of [null, 7, ['ru']]) {
      const res = await call(t, 'PATCH', '/worker/me', headers, { language });
      expect(res.statusCode, res.body).toBe(400);
    }
    const worker = await workerMe(t, headers);
    expect(worker.language).toBe('ru');
    expect(worker.headline).toBe('');
  });
});
