import { createHmac } from 'node:crypto';
import { validate } from '@telegram-apps/init-data-node';
import { isBlank, withoutControlCharacters } from '../domain/text.js';
import type { TelegramUser } from '../domain/workers/workerProfile.js';

/** Init data older than this is refused, as Telegram's docs advise against replay. */
export const INIT_DATA_MAX_AGE_MS = 24 * 3600_000;
const MAX_INIT_DATA_LENGTH = 4096;
const CLOCK_SKEW_MS = 5 * 60_000;

/**
 * Checks Mini App init data (the `tma` credential): the hash must be the bot token's HMAC
 * (verified by @telegram-apps/init-data-node), and auth_date must be recent by the injected
 * clock. Returns the Telegram user, or null.
 */
export function verifyInitData(raw: string, botToken: string, now: Date): TelegramUser | null {
  if (raw.length === 0 || raw.length > MAX_INIT_DATA_LENGTH) return null;
  try {
    // Expiry is checked below against the service clock, so tests can move time.
    validate(raw, botToken, { expiresIn: 0 });
  } catch {
    return null;
  }
  const params = new URLSearchParams(raw);
  const authDateMs = Number(params.get('auth_date')) * 1000;
  const age = now.getTime() - authDateMs;
  if (!Number.isFinite(age) || age > INIT_DATA_MAX_AGE_MS || age < -CLOCK_SKEW_MS) return null;
  return readUser(params.get('user'));
}

function readUser(json: string | null): TelegramUser | null {
  if (!json) return null;
  let user: Record<string, unknown>;
  try {
    user = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return null;
  }
  // `user=null` is valid JSON: without this check it threw, and the sign-in answered 500.
  if (typeof user !== 'object' || user === null) return null;
  if (!Number.isSafeInteger(user.id) || typeof user.first_name !== 'string') return null;
  return {
    id: user.id as number,
    first_name: cleanText(user.first_name) ?? '',
    last_name: cleanText(user.last_name),
    username: cleanText(user.username),
    // Only a plausible IETF tag; the sign-in maps it to a supported language.
    language_code:
      typeof user.language_code === 'string' &&
      /^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*$/.test(user.language_code)
        ? user.language_code
        : undefined,
  };
}

/** Telegram's text, with control characters removed (docs/decisions/tasks-and-money.md); blank becomes absent. */
function cleanText(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const clean = withoutControlCharacters(value);
  return isBlank(clean) ? undefined : clean;
}

/**
 * Signs init data the way Telegram does (https://core.telegram.org/bots/webapps#validating-data-received-via-the-mini-app):
 * secret = HMAC-SHA256("WebAppData", botToken); hash = HMAC-SHA256(secret, data-check-string).
 * For tests and the CLI's development sign-in; written independently of the validator above.
 */
export function signInitData(user: TelegramUser, botToken: string, authDate: Date): string {
  const fields: Record<string, string> = {
    auth_date: String(Math.floor(authDate.getTime() / 1000)),
    query_id: `dev${authDate.getTime()}`,
    user: JSON.stringify({
      id: user.id,
      first_name: user.first_name,
      last_name: user.last_name,
      username: user.username,
      language_code: user.language_code,
    }),
  };
  const checkString = Object.keys(fields)
    .sort()
    .map((k) => `${k}=${fields[k]}`)
    .join('\n');
  const secret = createHmac('sha256', 'WebAppData').update(botToken).digest();
  const hash = createHmac('sha256', secret).update(checkString).digest('hex');
  return new URLSearchParams({ ...fields, hash }).toString();
}
