import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { INIT_DATA_MAX_AGE_MS, signInitData, verifyInitData } from '../../src/telegram/initData.js';

const BOT_TOKEN = '123456:AAE-test-bot-token-0123456789abcdef';
const NOW = new Date('2030-06-01T12:00:00.000Z');
const user = { id: 424242, first_name: 'Ana', last_name: 'Lima', username: 'ana_l' };

/** Telegram's algorithm written out here, to build init data the app's signer cannot. */
function sign(fields: Record<string, string>, token = BOT_TOKEN): string {
  const checkString = Object.keys(fields)
    .sort()
    .map((k) => `${k}=${fields[k]}`)
    .join('\n');
  const secret = createHmac('sha256', 'WebAppData').update(token).digest();
  return new URLSearchParams({
    ...fields,
    hash: createHmac('sha256', secret).update(checkString).digest('hex'),
  }).toString();
}
const authDate = (date: Date) => String(Math.floor(date.getTime() / 1000));

describe('verifyInitData', () => {
  it('accepts init data signed with the bot token and returns the user', () => {
    expect(verifyInitData(signInitData(user, BOT_TOKEN, NOW), BOT_TOKEN, NOW)).toEqual(user);
  });

  it('accepts init data signed by an independent implementation of Telegram’s algorithm', () => {
    const raw = sign({ auth_date: authDate(NOW), query_id: 'AAF', user: JSON.stringify(user) });
    expect(verifyInitData(raw, BOT_TOKEN, NOW)).toEqual(user);
    const minimal = sign({ auth_date: authDate(NOW), user: JSON.stringify({ id: 7, first_name: 'X' }) });
    expect(verifyInitData(minimal, BOT_TOKEN, NOW)).toEqual({
      id: 7,
      first_name: 'X',
      last_name: undefined,
      username: undefined,
    });
  });

  it('refuses init data signed with another bot token', () => {
    expect(verifyInitData(signInitData(user, '654321:other-token', NOW), BOT_TOKEN, NOW)).toBeNull();
    // The raw bot token used directly as the key (a common mistake) is not Telegram's scheme.
    const fields = { auth_date: authDate(NOW), user: JSON.stringify(user) };
    const checkString = Object.entries(fields)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => `${k}=${v}`)
      .join('\n');
    const wrongScheme = new URLSearchParams({
      ...fields,
      hash: createHmac('sha256', BOT_TOKEN).update(checkString).digest('hex'),
    }).toString();
    expect(verifyInitData(wrongScheme, BOT_TOKEN, NOW)).toBeNull();
  });

  it('accepts init data up to 24 hours old and refuses older', () => {
    const raw = signInitData(user, BOT_TOKEN, NOW);
    expect(verifyInitData(raw, BOT_TOKEN, new Date(NOW.getTime() + INIT_DATA_MAX_AGE_MS))).toEqual(user);
    expect(verifyInitData(raw, BOT_TOKEN, new Date(NOW.getTime() + INIT_DATA_MAX_AGE_MS + 1000))).toBeNull();
    expect(verifyInitData(raw, BOT_TOKEN, new Date(NOW.getTime() + 30 * 86_400_000))).toBeNull();
    expect(INIT_DATA_MAX_AGE_MS).toBe(24 * 3600_000);
  });

  it('tolerates a small clock skew into the future and refuses more', () => {
    const soon = signInitData(user, BOT_TOKEN, new Date(NOW.getTime() + 60_000));
    expect(verifyInitData(soon, BOT_TOKEN, NOW)).toEqual(user);
    const later = signInitData(user, BOT_TOKEN, new Date(NOW.getTime() + 10 * 60_000));
    expect(verifyInitData(later, BOT_TOKEN, NOW)).toBeNull();
    const farFuture = signInitData(user, BOT_TOKEN, new Date(NOW.getTime() + 365 * 86_400_000));
    expect(verifyInitData(farFuture, BOT_TOKEN, NOW)).toBeNull();
  });

  it('refuses signed init data without a usable user', () => {
    const base = { auth_date: authDate(NOW), query_id: 'q' };
    const extras: Record<string, string>[] = [
      {},
      { user: 'not json' },
      { user: JSON.stringify({ first_name: 'No id' }) },
      { user: JSON.stringify({ id: '42', first_name: 'String id' }) },
      { user: JSON.stringify({ id: 1.5, first_name: 'Fraction' }) },
      { user: JSON.stringify({ id: 2 ** 60, first_name: 'Unsafe' }) },
      { user: JSON.stringify({ id: 42 }) },
      { user: JSON.stringify({ id: 42, first_name: 7 }) },
      { user: 'null' },
    ];
    for (const extra of extras) {
      expect(verifyInitData(sign({ ...base, ...extra }), BOT_TOKEN, NOW), JSON.stringify(extra)).toBeNull();
    }
  });

  it('refuses a missing or bad auth_date even when signed', () => {
    expect(verifyInitData(sign({ user: JSON.stringify(user) }), BOT_TOKEN, NOW)).toBeNull();
    expect(
      verifyInitData(sign({ auth_date: 'soon', user: JSON.stringify(user) }), BOT_TOKEN, NOW),
    ).toBeNull();
  });

  it('refuses tampering: changed user, changed date, removed or altered hash', () => {
    const params = new URLSearchParams(signInitData(user, BOT_TOKEN, NOW));
    const withUser = new URLSearchParams(params);
    withUser.set('user', JSON.stringify({ ...user, id: 1 }));
    expect(verifyInitData(withUser.toString(), BOT_TOKEN, NOW)).toBeNull();

    const withDate = new URLSearchParams(params);
    withDate.set('auth_date', String(Number(params.get('auth_date')) + 60));
    expect(verifyInitData(withDate.toString(), BOT_TOKEN, NOW)).toBeNull();

    const added = new URLSearchParams(params);
    added.set('start_param', 'x');
    expect(verifyInitData(added.toString(), BOT_TOKEN, NOW)).toBeNull();

    const noHash = new URLSearchParams(params);
    noHash.delete('hash');
    expect(verifyInitData(noHash.toString(), BOT_TOKEN, NOW)).toBeNull();

    const badHash = new URLSearchParams(params);
    const hash = params.get('hash')!;
    badHash.set('hash', `${hash.slice(0, -1)}${hash.endsWith('0') ? '1' : '0'}`);
    expect(verifyInitData(badHash.toString(), BOT_TOKEN, NOW)).toBeNull();
  });

  it('refuses empty and oversized input', () => {
    expect(verifyInitData('', BOT_TOKEN, NOW)).toBeNull();
    expect(verifyInitData('garbage', BOT_TOKEN, NOW)).toBeNull();
    const huge = sign({
      auth_date: authDate(NOW),
      user: JSON.stringify({ ...user, last_name: 'x'.repeat(5000) }),
    });
    expect(verifyInitData(huge, BOT_TOKEN, NOW)).toBeNull();
  });
});

describe('signInitData', () => {
  it('writes auth_date in seconds, the user as JSON and a 64-hex hash', () => {
    const params = new URLSearchParams(signInitData(user, BOT_TOKEN, NOW));
    expect(params.get('auth_date')).toBe(authDate(NOW));
    expect(JSON.parse(params.get('user')!)).toEqual(user);
    expect(params.get('hash')).toMatch(/^[0-9a-f]{64}$/);
  });
});
