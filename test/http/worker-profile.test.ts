import { createHmac, randomBytes, randomInt } from 'node:crypto';
import { Address } from '@ton/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInitData } from '../../src/telegram/initData.js';
import { createTestApp, type TestApp, workerAuth } from '../helpers/app.js';
import {
  assignedTask,
  createAgent,
  createWorker,
  newWalletAddress,
  type TestAgent,
} from '../helpers/fixtures.js';
import { call, workerMe } from '../helpers/workerApi.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

/** Telegram ids far from the fixtures' counter, unique per call. */
let nextId = 7_000_000 + randomInt(1_000_000);
const freshTelegramId = () => nextId++;

async function workerRowsFor(telegramId: number) {
  return t.ctx.db.selectFrom('workers').selectAll().where('telegram_id', '=', String(telegramId)).execute();
}

/** Re-signs `fields` the way Telegram does, with our own code (so tests can build odd init data). */
function signFields(fields: Record<string, string>, botToken: string): string {
  const checkString = Object.keys(fields)
    .sort()
    .map((k) => `${k}=${fields[k]}`)
    .join('\n');
  const secret = createHmac('sha256', 'WebAppData').update(botToken).digest();
  const hash = createHmac('sha256', secret).update(checkString).digest('hex');
  return new URLSearchParams({ ...fields, hash }).toString();
}

const validationError = (path: string) => ({
  error: 'Validation failed',
  details: expect.arrayContaining([expect.objectContaining({ path, message: expect.any(String) })]),
});

describe('worker sign-in with Telegram Mini App init data', () => {
  it('registers the worker from the init data user on the first call', async () => {
    const telegramId = freshTelegramId();
    expect(await workerRowsFor(telegramId)).toHaveLength(0);
    const headers = workerAuth(t, telegramId, 'Alice', 'alice_tg');

    const worker = await workerMe(t, headers);
    expect(worker).toEqual({
      id: expect.stringMatching(/^wrk_[0-9a-z]{40}$/),
      telegramUsername: 'alice_tg',
      firstName: 'Alice',
      lastName: null,
      headline: '',
      bio: null,
      city: null,
      state: null,
      country: null,
      timezone: null,
      skills: [],
      socialLinks: {},
      hourlyRate: null,
      available: true,
      completedTasks: 0,
      totalEarned: '0',
      avgRating: null,
      ratingCount: 0,
      memberSince: t.clock.now().toISOString(),
      walletAddress: null,
      showTelegram: false,
      language: 'en',
      earnings: { TON: '0', USDT: '0' },
    });
    const rows = await workerRowsFor(telegramId);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.id).toBe(worker.id);
  });

  it('the same Telegram id is the same worker, and the username follows Telegram', async () => {
    const telegramId = freshTelegramId();
    const first = await workerMe(t, workerAuth(t, telegramId, 'Bob', 'bob_old'));
    t.clock.advance(60_000);
    const second = await workerMe(t, workerAuth(t, telegramId, 'Bob', 'bob_new'));
    expect(second.id).toBe(first.id);
    expect(second.telegramUsername).toBe('bob_new');
    expect(second.memberSince).toBe(first.memberSince);
    expect(await workerRowsFor(telegramId)).toHaveLength(1);

    // A different Telegram id is a different worker.
    const other = await workerMe(t, workerAuth(t, freshTelegramId(), 'Bob'));
    expect(other.id).not.toBe(first.id);
  });

  it('a profile edit survives later sign-ins (the init data name does not overwrite it)', async () => {
    const telegramId = freshTelegramId();
    const headers = workerAuth(t, telegramId, 'Carol');
    const patched = await call(t, 'PATCH', '/worker/me', headers, { firstName: 'Caroline' });
    expect(patched.statusCode, patched.body).toBe(200);
    const again = await workerMe(t, workerAuth(t, telegramId, 'Carol'));
    expect(again.firstName).toBe('Caroline');
  });

  it('init data signed with another bot token is 401 and registers nobody', async () => {
    const telegramId = freshTelegramId();
    const initData = signInitData(
      { id: telegramId, first_name: 'Mallory' },
      `100000:${randomBytes(16).toString('hex')}`,
      t.clock.now(),
    );
    const res = await call(t, 'GET', '/worker/me', { authorization: `tma ${initData}` });
    expect(res.statusCode).toBe(401);
    expect(res.json().error).toBe('Unauthorized');
    expect(await workerRowsFor(telegramId)).toHaveLength(0);
  });

  it('init data older than 24 hours by the app clock is 401', async () => {
    const telegramId = freshTelegramId();
    const headers = workerAuth(t, telegramId, 'Dave');
    t.clock.advance(24 * 3600_000 - 60_000);
    const stillFresh = await call(t, 'GET', '/worker/me', headers);
    expect(stillFresh.statusCode, stillFresh.body).toBe(200);
    t.clock.advance(2 * 60_000);
    const expired = await call(t, 'GET', '/worker/me', headers);
    expect(expired.statusCode).toBe(401);
    expect(expired.json().error).toBe('Unauthorized');
    // Fresh init data for the same user works again.
    const renewed = await workerMe(t, workerAuth(t, telegramId, 'Dave'));
    expect(renewed.id).toBe(stillFresh.json().worker.id);
  });

  it('init data dated in the future beyond the allowed skew is 401', async () => {
    const initData = signInitData(
      { id: freshTelegramId(), first_name: 'Eve' },
      t.config.telegramBotToken,
      new Date(t.clock.now().getTime() + 3600_000),
    );
    const res = await call(t, 'GET', '/worker/me', { authorization: `tma ${initData}` });
    expect(res.statusCode).toBe(401);
  });

  it('a missing header, a Bearer token, an agent key or an empty tma credential is 401', async () => {
    const valid = workerAuth(t, freshTelegramId(), 'Frank').authorization.slice('tma '.length);
    const agent = await createAgent(t);
    const attempts: Record<string, string>[] = [
      {},
      { authorization: `Bearer ${valid}` },
      { authorization: valid },
      { authorization: 'tma ' },
      { authorization: 'tma' },
      agent.headers,
      t.admin,
    ];
    for (const headers of attempts) {
      const res = await call(t, 'GET', '/worker/me', headers);
      expect(res.statusCode, JSON.stringify(headers)).toBe(401);
      expect(res.json().error).toBe('Unauthorized');
    }
    // And a valid worker credential does not open the agent API.
    const onAgentApi = await call(t, 'GET', '/agents/me', { authorization: `tma ${valid}` });
    expect(onAgentApi.statusCode).toBe(401);
  });

  it('init data whose user was changed after signing is 401', async () => {
    const telegramId = freshTelegramId();
    const victim = await workerMe(t, workerAuth(t, telegramId, 'Grace'));
    const params = new URLSearchParams(workerAuth(t, freshTelegramId(), 'Heidi').authorization.slice(4));
    const user = JSON.parse(params.get('user')!);
    params.set('user', JSON.stringify({ ...user, id: telegramId }));
    const res = await call(t, 'GET', '/worker/me', { authorization: `tma ${params.toString()}` });
    expect(res.statusCode).toBe(401);
    expect(res.json().error).toBe('Unauthorized');

    // Changing only the name is refused as well.
    const renamed = new URLSearchParams(workerAuth(t, telegramId, 'Grace').authorization.slice(4));
    renamed.set('user', JSON.stringify({ id: telegramId, first_name: 'Not Grace' }));
    const res2 = await call(t, 'GET', '/worker/me', { authorization: `tma ${renamed.toString()}` });
    expect(res2.statusCode).toBe(401);
    expect((await workerMe(t, workerAuth(t, telegramId, 'Grace'))).firstName).toBe(victim.firstName);

    // A later auth_date with the old hash is refused too.
    const redated = new URLSearchParams(workerAuth(t, telegramId, 'Grace').authorization.slice(4));
    redated.set('auth_date', String(Number(redated.get('auth_date')) + 1));
    const res3 = await call(t, 'GET', '/worker/me', { authorization: `tma ${redated.toString()}` });
    expect(res3.statusCode).toBe(401);
  });

  it('correctly signed init data without a user is 401', async () => {
    const initData = signFields(
      { auth_date: String(Math.floor(t.clock.now().getTime() / 1000)), query_id: 'q1' },
      t.config.telegramBotToken,
    );
    const res = await call(t, 'GET', '/worker/me', { authorization: `tma ${initData}` });
    expect(res.statusCode).toBe(401);
    // A user that is JSON null (or not an object) is 401 as well, not a 500.
    for (const user of ['null', '42', '"name"', '[]']) {
      const odd = signFields(
        { auth_date: String(Math.floor(t.clock.now().getTime() / 1000)), user },
        t.config.telegramBotToken,
      );
      const oddRes = await call(t, 'GET', '/worker/me', { authorization: `tma ${odd}` });
      expect(oddRes.statusCode, user).toBe(401);
      expect(oddRes.json().error).toBe('Unauthorized');
    }
  });

  it('init data signed independently of the app code is accepted', async () => {
    const telegramId = freshTelegramId();
    const initData = signFields(
      {
        auth_date: String(Math.floor(t.clock.now().getTime() / 1000)),
        query_id: 'independent',
        user: JSON.stringify({ id: telegramId, first_name: 'Ivan', last_name: 'Petrov', username: 'ivp' }),
      },
      t.config.telegramBotToken,
    );
    const worker = await workerMe(t, { authorization: `tma ${initData}` });
    expect(worker).toMatchObject({ firstName: 'Ivan', lastName: 'Petrov', telegramUsername: 'ivp' });
  });
});

describe('GET/PATCH /worker/me', () => {
  const fullProfile = {
    firstName: 'Judy',
    lastName: 'Hopps',
    headline: 'Photographer and courier',
    bio: 'I take photos of things around town.',
    city: 'Berlin',
    state: 'Berlin',
    country: 'DE',
    timezone: 'Europe/Berlin',
    skills: ['photo', 'delivery', 'translation'],
    socialLinks: {
      twitter: 'https://twitter.com/judy',
      linkedin: 'https://linkedin.com/in/judy',
      github: 'https://github.com/judy',
      website: 'https://judy.example',
      instagram: 'https://instagram.com/judy',
      youtube: 'https://youtube.com/@judy',
    },
    hourlyRate: '12.5',
    available: false,
    showTelegram: true,
  };

  it('updates every profile field and returns the detail fields plus private settings', async () => {
    const headers = workerAuth(t, freshTelegramId(), 'Judy', 'judy_tg');
    const before = await workerMe(t, headers);
    const res = await call(t, 'PATCH', '/worker/me', headers, fullProfile);
    expect(res.statusCode, res.body).toBe(200);
    const expected = {
      ...fullProfile,
      id: before.id,
      telegramUsername: 'judy_tg',
      completedTasks: 0,
      totalEarned: '0',
      avgRating: null,
      ratingCount: 0,
      memberSince: before.memberSince,
      walletAddress: null,
      language: 'en',
      earnings: { TON: '0', USDT: '0' },
    };
    expect(res.json().worker).toEqual(expected);
    expect(await workerMe(t, headers)).toEqual(expected);
  });

  it('a partial patch changes only the fields it names', async () => {
    const headers = workerAuth(t, freshTelegramId(), 'Ken');
    expect((await call(t, 'PATCH', '/worker/me', headers, fullProfile)).statusCode).toBe(200);
    const res = await call(t, 'PATCH', '/worker/me', headers, { city: 'Hamburg', available: true });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().worker).toMatchObject({
      ...fullProfile,
      city: 'Hamburg',
      available: true,
    });
  });

  it('null clears the optional fields; an empty list clears skills', async () => {
    const headers = workerAuth(t, freshTelegramId(), 'Liam');
    expect((await call(t, 'PATCH', '/worker/me', headers, fullProfile)).statusCode).toBe(200);
    const res = await call(t, 'PATCH', '/worker/me', headers, {
      lastName: null,
      headline: null,
      bio: null,
      city: null,
      state: null,
      country: null,
      timezone: null,
      hourlyRate: null,
      skills: [],
      socialLinks: {},
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().worker).toMatchObject({
      firstName: 'Judy',
      lastName: null,
      headline: '',
      bio: null,
      city: null,
      state: null,
      country: null,
      timezone: null,
      hourlyRate: null,
      skills: [],
      socialLinks: {},
    });
  });

  it('fields the worker may not set are ignored (wallet, earnings, ratings)', async () => {
    const headers = workerAuth(t, freshTelegramId(), 'Mia');
    const res = await call(t, 'PATCH', '/worker/me', headers, {
      headline: 'Hi',
      walletAddress: newWalletAddress(),
      completedTasks: 99,
      totalEarned: '1000',
      avgRating: 5,
      ratingCount: 10,
      id: 'wrk_00000000000000000000000000',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().worker).toMatchObject({
      headline: 'Hi',
      walletAddress: null,
      completedTasks: 0,
      totalEarned: '0',
      avgRating: null,
      ratingCount: 0,
    });
    expect(res.json().worker.id).toMatch(/^wrk_/);
    expect(res.json().worker.id).not.toBe('wrk_00000000000000000000000000');
  });

  it('headline up to 200 and bio up to 2000 characters; longer is 400', async () => {
    const headers = workerAuth(t, freshTelegramId(), 'Noah');
    const ok = await call(t, 'PATCH', '/worker/me', headers, {
      headline: 'h'.repeat(200),
      bio: 'b'.repeat(2000),
    });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().worker.headline).toHaveLength(200);
    expect(ok.json().worker.bio).toHaveLength(2000);

    const longHeadline = await call(t, 'PATCH', '/worker/me', headers, { headline: 'h'.repeat(201) });
    expect(longHeadline.statusCode).toBe(400);
    expect(longHeadline.json()).toEqual(validationError('headline'));

    const longBio = await call(t, 'PATCH', '/worker/me', headers, { bio: 'b'.repeat(2001) });
    expect(longBio.statusCode).toBe(400);
    expect(longBio.json()).toEqual(validationError('bio'));

    // Nothing changed on the refused requests.
    const me = await workerMe(t, headers);
    expect(me.headline).toHaveLength(200);
    expect(me.bio).toHaveLength(2000);
  });

  it('timezone must be an IANA identifier', async () => {
    const headers = workerAuth(t, freshTelegramId(), 'Olga');
    // Asia/Kolkata and Europe/Kyiv are names ICU resolves to older aliases: the worker's choice is kept.
    for (const timezone of ['America/New_York', 'Asia/Kolkata', 'Europe/Kyiv', 'UTC']) {
      const res = await call(t, 'PATCH', '/worker/me', headers, { timezone });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().worker.timezone).toBe(timezone);
    }
    const caseFixed = await call(t, 'PATCH', '/worker/me', headers, { timezone: 'europe/berlin' });
    expect(caseFixed.json().worker.timezone).toBe('Europe/Berlin');
    for (const timezone of ['Mars/Olympus_Mons', 'Europe/Nowhere', 'not a zone', '']) {
      const res = await call(t, 'PATCH', '/worker/me', headers, { timezone });
      if (timezone === '') {
        // An empty string clears the field, like null.
        expect(res.statusCode, res.body).toBe(200);
        expect(res.json().worker.timezone).toBeNull();
        continue;
      }
      expect(res.statusCode, timezone).toBe(400);
      expect(res.json()).toEqual(validationError('timezone'));
    }
  });

  it('skills: up to 20; 21 is 400', async () => {
    const headers = workerAuth(t, freshTelegramId(), 'Pia');
    const twenty = Array.from({ length: 20 }, (_, i) => `skill${i}`);
    const ok = await call(t, 'PATCH', '/worker/me', headers, { skills: twenty });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().worker.skills).toEqual(twenty);

    const res = await call(t, 'PATCH', '/worker/me', headers, { skills: [...twenty, 'one-more'] });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(validationError('skills'));
    expect((await workerMe(t, headers)).skills).toEqual(twenty);

    const notStrings = await call(t, 'PATCH', '/worker/me', headers, { skills: [{ name: 'photo' }] });
    expect(notStrings.statusCode).toBe(400);
    expect(notStrings.json().error).toBe('Validation failed');
  });

  it('socialLinks keys are among twitter, linkedin, github, website, instagram, youtube', async () => {
    const headers = workerAuth(t, freshTelegramId(), 'Quinn');
    const ok = await call(t, 'PATCH', '/worker/me', headers, {
      socialLinks: { github: 'https://github.com/quinn' },
    });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().worker.socialLinks).toEqual({ github: 'https://github.com/quinn' });

    const res = await call(t, 'PATCH', '/worker/me', headers, {
      socialLinks: { github: 'https://github.com/q', facebook: 'https://facebook.com/quinn' },
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().error).toBe('Validation failed');
    expect(res.json().details[0].path).toMatch(/socialLinks/);
    expect((await workerMe(t, headers)).socialLinks).toEqual({ github: 'https://github.com/quinn' });
  });

  it('hourlyRate is a decimal TON amount (string or number), returned as a decimal string', async () => {
    const headers = workerAuth(t, freshTelegramId(), 'Rita');
    const cases: [unknown, string][] = [
      ['12.5', '12.5'],
      ['100', '100'],
      ['0.013', '0.013'],
      ['7.000000000', '7'],
      [12.75, '12.75'],
    ];
    for (const [hourlyRate, shown] of cases) {
      const res = await call(t, 'PATCH', '/worker/me', headers, { hourlyRate });
      expect(res.statusCode, `${hourlyRate}: ${res.body}`).toBe(200);
      expect(res.json().worker.hourlyRate).toBe(shown);
    }
    for (const hourlyRate of ['1e3', '-1', 'abc', '1.0000000001', '1,5', -2]) {
      const res = await call(t, 'PATCH', '/worker/me', headers, { hourlyRate });
      expect(res.statusCode, String(hourlyRate)).toBe(400);
      expect(res.json()).toEqual(validationError('hourlyRate'));
    }
    expect((await workerMe(t, headers)).hourlyRate).toBe('12.75');
  });

  it('available and showTelegram are booleans; the catalog shows the username only when asked to', async () => {
    const headers = workerAuth(t, freshTelegramId(), 'Sam', 'sam_tg');
    const set = await call(t, 'PATCH', '/worker/me', headers, { available: false, showTelegram: true });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json().worker).toMatchObject({ available: false, showTelegram: true });
    const id = set.json().worker.id;

    const agent = await createAgent(t);
    const shown = await call(t, 'GET', `/agents/workers/${id}`, agent.headers);
    expect(shown.statusCode, shown.body).toBe(200);
    expect(shown.json().worker.telegramUsername).toBe('sam_tg');

    const hide = await call(t, 'PATCH', '/worker/me', headers, { showTelegram: false });
    expect(hide.json().worker.showTelegram).toBe(false);
    // The worker still sees their own username; others do not.
    expect(hide.json().worker.telegramUsername).toBe('sam_tg');
    const hidden = await call(t, 'GET', `/agents/workers/${id}`, agent.headers);
    expect(hidden.json().worker.telegramUsername).toBeUndefined();

    const bad = await call(t, 'PATCH', '/worker/me', headers, { available: 'maybe' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toBe('Validation failed');
  });

  it('firstName cannot be cleared or blank', async () => {
    const headers = workerAuth(t, freshTelegramId(), 'Tina');
    for (const firstName of [null, '', '   ']) {
      const res = await call(t, 'PATCH', '/worker/me', headers, { firstName });
      expect(res.statusCode, JSON.stringify(firstName)).toBe(400);
      expect(res.json()).toEqual(validationError('firstName'));
    }
    expect((await workerMe(t, headers)).firstName).toBe('Tina');
  });

  it('malformed JSON is 400 Invalid JSON body', async () => {
    const headers = workerAuth(t, freshTelegramId(), 'Uma');
    const res = await t.app.inject({
      method: 'PATCH',
      url: '/worker/me',
      headers: { ...headers, 'content-type': 'application/json' },
      payload: '{"headline": ',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'Invalid JSON body' });
  });
});

describe('PUT /worker/me/wallet', () => {
  const friendly = (raw: string) =>
    Address.parse(raw).toString({ bounceable: false, urlSafe: true, testOnly: true });

  it('accepts a raw address and returns it in the non-bounceable test-network form', async () => {
    const headers = workerAuth(t, freshTelegramId(), 'Vera');
    const hex = randomBytes(32).toString('hex');
    const res = await call(t, 'PUT', '/worker/me/wallet', headers, { address: `0:${hex}` });
    expect(res.statusCode, res.body).toBe(200);
    const stored = res.json().worker.walletAddress as string;
    expect(stored).toMatch(/^0Q[A-Za-z0-9_-]{46}$/);
    expect(Address.parse(stored).toRawString()).toBe(`0:${hex}`);
    expect(stored).toBe(friendly(`0:${hex}`));
    expect((await workerMe(t, headers)).walletAddress).toBe(stored);
  });

  it('accepts user-friendly forms (bounceable, mainnet, base64 with +/) and normalises them', async () => {
    const headers = workerAuth(t, freshTelegramId(), 'Walt');
    const raw = `0:${randomBytes(32).toString('hex')}`;
    const address = Address.parse(raw);
    const forms = [
      address.toString({ bounceable: true, urlSafe: true, testOnly: false }),
      address.toString({ bounceable: false, urlSafe: true, testOnly: false }),
      address.toString({ bounceable: true, urlSafe: false, testOnly: true }),
      `  ${address.toString({ bounceable: false, urlSafe: true, testOnly: true })}  `,
    ];
    for (const form of forms) {
      const res = await call(t, 'PUT', '/worker/me/wallet', headers, { address: form });
      expect(res.statusCode, `${form}: ${res.body}`).toBe(200);
      expect(res.json().worker.walletAddress).toBe(friendly(raw));
    }
  });

  it('a malformed address is 400 and leaves the wallet as it was', async () => {
    const headers = workerAuth(t, freshTelegramId(), 'Xena');
    const good = newWalletAddress();
    expect((await call(t, 'PUT', '/worker/me/wallet', headers, { address: good })).statusCode).toBe(200);
    const corruptChecksum = `${good.slice(0, -2)}${good.endsWith('AA') ? 'BB' : 'AA'}`;
    for (const address of [
      'hello',
      '0:xyz',
      `0:${randomBytes(31).toString('hex')}`,
      corruptChecksum,
      good.slice(0, -1),
      '   ',
    ]) {
      const res = await call(t, 'PUT', '/worker/me/wallet', headers, { address });
      expect(res.statusCode, address).toBe(400);
      expect(res.json()).toEqual(validationError('address'));
    }
    for (const payload of [{}, { address: '' }, { address: 42 }, { address: 'E'.repeat(101) }]) {
      const res = await call(t, 'PUT', '/worker/me/wallet', headers, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().error).toBe('Validation failed');
    }
    expect((await workerMe(t, headers)).walletAddress).toBe(good);
  });

  describe('while a task is assigned', () => {
    let agent: TestAgent;
    beforeAll(async () => {
      agent = await createAgent(t, { deposit: '100' });
    });

    it('changing the wallet is 409; the same address (in any form) is fine', async () => {
      const worker = await createWorker(t);
      const { taskId } = await assignedTask(t, agent, worker);
      const other = newWalletAddress();

      const refused = await call(t, 'PUT', '/worker/me/wallet', worker.headers, { address: other });
      expect(refused.statusCode, refused.body).toBe(409);
      expect(refused.json().error).toMatch(/wallet/i);
      expect((await workerMe(t, worker.headers)).walletAddress).toBe(worker.wallet);

      const same = await call(t, 'PUT', '/worker/me/wallet', worker.headers, { address: worker.wallet });
      expect(same.statusCode, same.body).toBe(200);
      const sameRaw = Address.parse(worker.wallet!).toRawString();
      const sameInRaw = await call(t, 'PUT', '/worker/me/wallet', worker.headers, { address: sameRaw });
      expect(sameInRaw.statusCode, sameInRaw.body).toBe(200);
      expect(sameInRaw.json().worker.walletAddress).toBe(worker.wallet);

      // Still refused in IN_PROGRESS and REVIEW.
      for (const status of ['IN_PROGRESS', 'REVIEW']) {
        const moved = await call(t, 'PATCH', `/worker/tasks/${taskId}`, worker.headers, { status });
        expect(moved.statusCode, moved.body).toBe(200);
        const again = await call(t, 'PUT', '/worker/me/wallet', worker.headers, { address: other });
        expect(again.statusCode, status).toBe(409);
      }

      // Once the task is over the wallet can change.
      const refund = await call(t, 'POST', `/tasks/${taskId}/refund`, agent.headers, {});
      expect(refund.statusCode, refund.body).toBe(200);
      const changed = await call(t, 'PUT', '/worker/me/wallet', worker.headers, { address: other });
      expect(changed.statusCode, changed.body).toBe(200);
      expect(changed.json().worker.walletAddress).toBe(other);
    });
  });
});

describe('the profile as agents find it', () => {
  it('a worker who set Asia/Kolkata is found by the catalog filter timezone=Asia/Kolkata', async () => {
    const worker = await createWorker(t, {
      profile: { headline: 'Translator', skills: ['hindi'], timezone: 'Asia/Kolkata', country: 'IN' },
    });
    const agent = await createAgent(t);
    const res = await call(t, 'GET', '/agents/workers?timezone=Asia/Kolkata&limit=100', agent.headers);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().workers.map((w: { id: string }) => w.id)).toContain(worker.id);
  });
});
