import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completedTask, type Json, ok, uniqueTag, unknownId, walk } from '../helpers/agentApi.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createAgent, createWorker, type TestAgent, type TestWorker } from '../helpers/fixtures.js';

/**
 * One app for the file, so the catalog holds every test's workers: each test gives its workers
 * a unique skill (or country) and filters by it.
 */
let t: TestApp;
let agent: TestAgent;
beforeAll(async () => {
  t = await createTestApp();
  agent = await createAgent(t, { deposit: '1000' });
});
afterAll(() => t.close());

async function listed(query: string): Promise<Json> {
  return ok(t, agent, 'GET', `/agents/workers?${query}`);
}
const ids = (body: Json): string[] => body.workers.map((w: { id: string }) => w.id);

function worker(profile: Record<string, unknown>, opts: { wallet?: boolean; username?: string } = {}) {
  return createWorker(t, { profile: { headline: 'Helpful human', ...profile }, ...opts });
}

describe('GET /agents/workers', () => {
  it('lists only workers with a wallet, a headline and skills, available by default', async () => {
    const country = uniqueTag('Land');
    const base = { skills: ['photo'], country };
    const ready = await worker(base);
    await worker(base, { wallet: false });
    await worker({ ...base, headline: null });
    await worker({ ...base, headline: '   ' });
    await worker({ headline: 'No skills', country });
    const away = await worker({ ...base, available: false });

    const body = await listed(`country=${country}`);
    expect(ids(body)).toEqual([ready.id]);
    expect(body.total).toBe(1);
    expect(body.nextCursor).toBeNull();
    expect(body.hasMore).toBe(false);

    expect(ids(await listed(`country=${country}&available=true`))).toEqual([ready.id]);
    const unavailable = await listed(`country=${country}&available=false`);
    expect(ids(unavailable)).toEqual([away.id]);
    expect(unavailable.total).toBe(1);

    // A worker who completes the profile later appears.
    const late = await worker({ headline: null, skills: ['photo'], country });
    expect((await listed(`country=${country}`)).total).toBe(1);
    await ok(t, late, 'PATCH', '/worker/me', { headline: 'Now ready' });
    expect(ids(await listed(`country=${country}`)).sort()).toEqual([ready.id, late.id].sort());
  });

  it('shows the list entry fields, and the username only when the worker shows it', async () => {
    const skill = uniqueTag('Entry');
    const memberSince = t.clock.now().toISOString();
    const hidden = await worker(
      {
        headline: 'Photographer',
        skills: [skill, 'Drone'],
        country: 'DE',
        timezone: 'Europe/Berlin',
        hourlyRate: '12.5',
        lastName: 'Muster',
        bio: 'Not in the list entry',
      },
      { username: 'hidden_user' },
    );
    const shown = await worker({ skills: [skill], showTelegram: true }, { username: 'shown_user' });

    const body = await listed(`skills=${skill}`);
    const entry = body.workers.find((w: { id: string }) => w.id === hidden.id);
    expect(entry).toEqual({
      id: hidden.id,
      firstName: `Worker${hidden.telegramId}`,
      lastName: 'Muster',
      headline: 'Photographer',
      country: 'DE',
      timezone: 'Europe/Berlin',
      skills: [skill, 'Drone'],
      hourlyRate: '12.5',
      completedTasks: 0,
      avgRating: null,
      ratingCount: 0,
      memberSince,
    });
    const other = body.workers.find((w: { id: string }) => w.id === shown.id);
    expect(other.username).toBe('shown_user');
    expect(other).toMatchObject({ hourlyRate: null, country: null, timezone: null, lastName: null });
  });

  it('matches skills all-of and case-insensitively', async () => {
    const a = uniqueTag('SkA');
    const b = uniqueTag('SkB');
    const both = await worker({ skills: [a, b] });
    const onlyA = await worker({ skills: [a.toUpperCase(), 'Other'] });
    const onlyB = await worker({ skills: [b] });

    expect(ids(await listed(`skills=${a}`)).sort()).toEqual([both.id, onlyA.id].sort());
    expect(ids(await listed(`skills=${a.toLowerCase()}`)).sort()).toEqual([both.id, onlyA.id].sort());
    expect(ids(await listed(`skills=${b.toUpperCase()}`)).sort()).toEqual([both.id, onlyB.id].sort());
    const all = await listed(`skills=${encodeURIComponent(`${a.toUpperCase()}, ${b.toLowerCase()}`)}`);
    expect(ids(all)).toEqual([both.id]);
    expect(all.total).toBe(1);
    expect((await listed(`skills=${a},${uniqueTag('nobody')}`)).workers).toEqual([]);
    // Commas alone filter nothing out beyond the basic listing rules.
    expect(ids(await listed(`skills=${b},,`)).sort()).toEqual([both.id, onlyB.id].sort());
  });

  it('matches country case-insensitively and timezone exactly', async () => {
    const skill = uniqueTag('Geo');
    const berlin = await worker({ skills: [skill], country: 'Germany', timezone: 'Europe/Berlin' });
    const tokyo = await worker({ skills: [skill], country: 'Japan', timezone: 'Asia/Tokyo' });
    const munich = await worker({ skills: [skill], country: 'germany', timezone: 'Europe/Berlin' });

    for (const country of ['Germany', 'GERMANY', 'germany', 'gErMaNy']) {
      const body = await listed(`skills=${skill}&country=${country}`);
      expect(ids(body).sort(), country).toEqual([berlin.id, munich.id].sort());
      expect(body.total).toBe(2);
    }
    expect(ids(await listed(`skills=${skill}&country=japan`))).toEqual([tokyo.id]);
    expect(ids(await listed(`skills=${skill}&country=France`))).toEqual([]);

    const tz = (zone: string) => listed(`skills=${skill}&timezone=${encodeURIComponent(zone)}`);
    expect(ids(await tz('Asia/Tokyo'))).toEqual([tokyo.id]);
    expect(ids(await tz('Europe/Berlin')).sort()).toEqual([berlin.id, munich.id].sort());
    expect(ids(await tz('America/New_York'))).toEqual([]);
    expect(ids(await listed(`skills=${skill}&country=germany&timezone=Asia%2FTokyo`))).toEqual([]);
  });

  it('filters by hourly rate, inclusive, leaving out workers without a rate', async () => {
    const skill = uniqueTag('Rate');
    const five = await worker({ skills: [skill], hourlyRate: '5' });
    const ten = await worker({ skills: [skill], hourlyRate: 10 });
    const twenty = await worker({ skills: [skill], hourlyRate: '20.25' });
    const none = await worker({ skills: [skill] });

    const byRate = async (q: string) => ids(await listed(`skills=${skill}&${q}`)).sort();
    expect(await byRate('minRate=10')).toEqual([ten.id, twenty.id].sort());
    expect(await byRate('maxRate=10')).toEqual([five.id, ten.id].sort());
    expect(await byRate('minRate=6&maxRate=15')).toEqual([ten.id]);
    expect(await byRate('minRate=20.25')).toEqual([twenty.id]);
    expect(await byRate('minRate=20.26')).toEqual([]);
    expect(await byRate('maxRate=4.99')).toEqual([]);
    expect(await byRate('minRate=0')).toEqual([five.id, ten.id, twenty.id].sort());
    expect(await byRate('')).toEqual([five.id, ten.id, twenty.id, none.id].sort());
    expect((await listed(`skills=${skill}&minRate=5&maxRate=10`)).total).toBe(2);

    for (const q of ['minRate=-1', 'maxRate=abc', 'minRate=0.0000000001', 'available=maybe', 'limit=0']) {
      const res = await t.app.inject({
        method: 'GET',
        url: `/agents/workers?skills=${skill}&${q}`,
        headers: agent.headers,
      });
      expect(res.statusCode, q).toBe(400);
      expect(res.json().error).toBe('Validation failed');
    }
  });

  it('orders by completed tasks, then member since, and pages through every worker exactly once', async () => {
    const skill = uniqueTag('Order');
    const made: TestWorker[] = [];
    for (let i = 0; i < 4; i++) {
      made.push(await worker({ skills: [skill] }));
      t.clock.advance(1000);
    }
    const [first, second, third, fourth] = made as [TestWorker, TestWorker, TestWorker, TestWorker];
    // Three more joining in the same millisecond: their order is settled by id, but stable.
    for (let i = 0; i < 3; i++) made.push(await worker({ skills: [skill] }));
    await completedTask(t, agent, third, { reward: '1' });
    await completedTask(t, agent, third, { reward: '1' });
    await completedTask(t, agent, fourth, { reward: '1' });

    const single = await listed(`skills=${skill}&limit=100`);
    expect(single.total).toBe(7);
    expect(ids(single).slice(0, 4)).toEqual([third.id, fourth.id, first.id, second.id]);
    expect(single.workers.slice(0, 2).map((w: { completedTasks: number }) => w.completedTasks)).toEqual([
      2, 1,
    ]);
    expect(new Set(ids(single).slice(4))).toEqual(new Set(made.slice(4).map((w) => w.id)));

    for (const limit of [1, 2, 3]) {
      const { items, pages } = await walk(
        t,
        agent,
        `/agents/workers?skills=${skill}&limit=${limit}`,
        'workers',
      );
      expect(items.map((w) => w.id)).toEqual(ids(single));
      expect(pages).toHaveLength(Math.ceil(7 / limit));
      expect(pages.every((p) => p.total === 7)).toBe(true);
      expect(pages.at(-1)!.nextCursor).toBeNull();
    }
  });

  it('defaults to 50 per page, allows at most 100, and refuses a foreign cursor', async () => {
    const country = uniqueTag('Many');
    for (let i = 0; i < 51; i++) await worker({ skills: ['bulk'], country });
    const first = await listed(`country=${country}`);
    expect(first.workers).toHaveLength(50);
    expect(first.total).toBe(51);
    expect(first.hasMore).toBe(true);
    const rest = await listed(`country=${country}&cursor=${first.nextCursor}`);
    expect(rest.workers).toHaveLength(1);
    expect(rest.nextCursor).toBeNull();
    expect(new Set([...ids(first), ...ids(rest)]).size).toBe(51);
    expect((await listed(`country=${country}&limit=100`)).workers).toHaveLength(51);

    const foreign = Buffer.from(JSON.stringify(['2030-01-01T00:00:00.000Z', 'tsk_x'])).toString('base64url');
    for (const q of ['limit=101', 'cursor=garbage', `cursor=${foreign}`]) {
      const res = await t.app.inject({
        method: 'GET',
        url: `/agents/workers?country=${country}&${q}`,
        headers: agent.headers,
      });
      expect(res.statusCode, q).toBe(400);
      expect(res.json().error).toBe('Validation failed');
    }
  });
});

describe('GET /agents/workers/:id', () => {
  it('shows the full profile', async () => {
    const skill = uniqueTag('Detail');
    const memberSince = t.clock.now().toISOString();
    const w = await worker(
      {
        headline: 'Local fixer',
        bio: 'I fix things.',
        city: 'Berlin',
        state: 'BE',
        country: 'DE',
        timezone: 'Europe/Berlin',
        skills: [skill, 'Plumbing'],
        socialLinks: { github: 'https://github.com/fixer', website: 'https://fixer.example' },
        hourlyRate: '7.5',
        lastName: 'Fix',
      },
      { username: 'fixer' },
    );
    const body = await ok(t, agent, 'GET', `/agents/workers/${w.id}`);
    expect(body).toEqual({
      worker: {
        id: w.id,
        firstName: `Worker${w.telegramId}`,
        lastName: 'Fix',
        headline: 'Local fixer',
        bio: 'I fix things.',
        city: 'Berlin',
        state: 'BE',
        country: 'DE',
        timezone: 'Europe/Berlin',
        skills: [skill, 'Plumbing'],
        socialLinks: { github: 'https://github.com/fixer', website: 'https://fixer.example' },
        hourlyRate: '7.5',
        available: true,
        completedTasks: 0,
        totalEarned: '0',
        avgRating: null,
        ratingCount: 0,
        memberSince,
      },
    });
    // No wallet address, no private settings, and no username until the worker shows it.
    await ok(t, w, 'PATCH', '/worker/me', { showTelegram: true, available: false });
    const shown = (await ok(t, agent, 'GET', `/agents/workers/${w.id}`)).worker;
    expect(shown.telegramUsername).toBe('fixer');
    expect(shown.available).toBe(false);
    expect(shown).not.toHaveProperty('walletAddress');
    expect(shown).not.toHaveProperty('showTelegram');
  });

  it('counts completed tasks and earnings', async () => {
    const w = await worker({ skills: ['earner'] });
    await completedTask(t, agent, w, { reward: '2.5' });
    await completedTask(t, agent, w, { reward: '0.75' });
    const detail = (await ok(t, agent, 'GET', `/agents/workers/${w.id}`)).worker;
    expect(detail).toMatchObject({ completedTasks: 2, totalEarned: '3.25' });
  });

  it('answers 404 for an unknown worker', async () => {
    for (const id of [unknownId('wrk'), 'nobody', unknownId('tsk')]) {
      const res = await t.app.inject({ method: 'GET', url: `/agents/workers/${id}`, headers: agent.headers });
      expect(res.statusCode, id).toBe(404);
      expect(res.json()).toEqual({ error: 'Worker not found' });
    }
  });
});
