import type { Updateable } from 'kysely';
import { normalizeAddress } from '../../chain/address.js';
import type { Executor, WorkerRow } from '../../db/repositories/executor.js';
import {
  findWorker,
  findWorkerByTelegramId,
  hasActiveAssignment,
  insertWorkerIfAbsent,
  replaceWorkerSkills,
  updateWorker,
} from '../../db/repositories/workers.js';
import type { Database } from '../../db/schema.js';
import type { DomainContext } from '../context.js';
import { assertInvariant, conflict, invalid } from '../errors.js';
import { newId } from '../ids.js';
import { requeueWorkerPayouts } from '../money/failedTransfers.js';
import { MAX_REWARD_NANO, parseTon } from '../money/money.js';
import { clipText, isBlank, textLength } from '../text.js';
import { inTransaction } from '../transaction.js';
import { isLanguage, LANGUAGES, languageOf } from './language.js';

export const PROFILE_LIMITS = {
  name: 100,
  headline: 200,
  bio: 2000,
  place: 100,
  skills: 20,
  skill: 50,
  link: 300,
} as const;
export const SOCIAL_KEYS = ['twitter', 'linkedin', 'github', 'website', 'instagram', 'youtube'] as const;

export interface TelegramUser {
  id: number;
  first_name: string;
  last_name?: string;
  username?: string;
  /** Telegram's language_code (an IETF tag such as "ru" or "en-US"), when the client sent one. */
  language_code?: string;
}

/** Finds or registers the worker behind verified Mini App init data. */
export async function signInWorker(ctx: DomainContext, user: TelegramUser): Promise<WorkerRow> {
  const telegramId = String(user.id);
  const existing = await findWorkerByTelegramId(ctx.db, telegramId);
  const now = ctx.clock.now().toISOString();
  const language = languageOf(user.language_code);
  if (existing) {
    // The Telegram username is Telegram's to change; keep ours in step. So is the language,
    // until the worker picks one in the profile.
    const set: Updateable<Database['workers']> = {};
    if ((user.username ?? null) !== existing.username) set.username = user.username ?? null;
    if (existing.language_chosen === 0 && existing.language !== language) set.language = language;
    if (Object.keys(set).length === 0) return existing;
    return (await updateWorker(ctx.db, existing.id, { ...set, updated_at: now })) ?? existing;
  }
  await insertWorkerIfAbsent(ctx.db, {
    id: newId('worker'),
    telegram_id: telegramId,
    username: user.username ?? null,
    first_name: clipText(user.first_name || 'Worker', PROFILE_LIMITS.name),
    last_name: user.last_name ? clipText(user.last_name, PROFILE_LIMITS.name) : null,
    headline: null,
    bio: null,
    city: null,
    state: null,
    country: null,
    timezone: null,
    language,
    language_chosen: 0,
    skills_json: '[]',
    social_links_json: '{}',
    hourly_rate_nano: null,
    available: 1,
    show_telegram: 0,
    wallet_address: null,
    completed_tasks: 0,
    total_earned_nano: 0n,
    usdt_earned_micro: 0n,
    rating_sum: 0,
    rating_count: 0,
    created_at: now,
    updated_at: now,
  });
  const row = await findWorkerByTelegramId(ctx.db, telegramId);
  assertInvariant(row, 'the worker row exists after registration');
  return row;
}

export interface ProfilePatch {
  firstName?: string;
  lastName?: string | null;
  headline?: string | null;
  bio?: string | null;
  city?: string | null;
  state?: string | null;
  country?: string | null;
  timezone?: string | null;
  skills?: string[];
  socialLinks?: Record<string, string>;
  hourlyRate?: string | number | null;
  available?: boolean;
  showTelegram?: boolean;
  language?: string;
}

export async function updateWorkerProfile(ctx: DomainContext, workerId: string, patch: ProfilePatch) {
  const set: Updateable<Database['workers']> = { updated_at: ctx.clock.now().toISOString() };
  if (patch.firstName !== undefined)
    set.first_name = required('firstName', patch.firstName, PROFILE_LIMITS.name);
  if (patch.lastName !== undefined) set.last_name = optional('lastName', patch.lastName, PROFILE_LIMITS.name);
  if (patch.headline !== undefined)
    set.headline = optional('headline', patch.headline, PROFILE_LIMITS.headline);
  if (patch.bio !== undefined) set.bio = optional('bio', patch.bio, PROFILE_LIMITS.bio);
  if (patch.city !== undefined) set.city = optional('city', patch.city, PROFILE_LIMITS.place);
  if (patch.state !== undefined) set.state = optional('state', patch.state, PROFILE_LIMITS.place);
  if (patch.country !== undefined) set.country = optional('country', patch.country, PROFILE_LIMITS.place);
  // Fastify's schema coercion turns a JSON null into "" for nullable strings: both clear the field.
  if (patch.timezone !== undefined)
    set.timezone =
      patch.timezone === null || patch.timezone.trim() === '' ? null : checkTimezone(patch.timezone);
  const skills = patch.skills === undefined ? undefined : checkSkills(patch.skills);
  if (skills) set.skills_json = JSON.stringify(skills);
  if (patch.socialLinks !== undefined) set.social_links_json = JSON.stringify(checkLinks(patch.socialLinks));
  if (patch.hourlyRate !== undefined)
    set.hourly_rate_nano =
      patch.hourlyRate === null || patch.hourlyRate === '' ? null : checkRate(patch.hourlyRate);
  if (patch.available !== undefined) set.available = patch.available ? 1 : 0;
  if (patch.showTelegram !== undefined) set.show_telegram = patch.showTelegram ? 1 : 0;
  if (patch.language !== undefined) {
    if (!isLanguage(patch.language)) throw invalid('language', `must be one of ${LANGUAGES.join(', ')}`);
    set.language = patch.language;
    set.language_chosen = 1;
  }
  return inTransaction(ctx.db, async (trx) => {
    const row = await updateWorker(trx, workerId, set);
    assertInvariant(row, 'a signed-in worker exists');
    if (skills) await replaceWorkerSkills(trx, workerId, skills);
    return row;
  });
}

/**
 * Sets the wallet rewards are paid to. Refused while the worker holds a task: the payout
 * address must not change under a task in progress.
 */
export async function setWorkerWallet(ctx: DomainContext, workerId: string, address: string) {
  const { address: normalized, problem } = normalizeAddress(address, ctx.chain.network);
  if (problem !== undefined) throw invalid('address', problem);
  return inTransaction(ctx.db, (trx) => saveWorkerWallet(trx, workerId, normalized, ctx.clock.now()));
}

/** Stores a normalised wallet address in the caller's transaction, with the rule above. */
export async function saveWorkerWallet(trx: Executor, workerId: string, normalized: string, now: Date) {
  const worker = await findWorker(trx, workerId);
  assertInvariant(worker, 'a signed-in worker exists');
  if (worker.wallet_address !== normalized && (await hasActiveAssignment(trx, workerId))) {
    throw conflict('You cannot change your wallet while a task is assigned to you; finish the task first');
  }
  const row = await updateWorker(trx, workerId, {
    wallet_address: normalized,
    updated_at: now.toISOString(),
  });
  assertInvariant(row, 'a signed-in worker exists');
  // Payouts given up on (a wallet that refused them, finding 2) go out again, to this wallet.
  await requeueWorkerPayouts(trx, workerId, normalized, now);
  return row;
}

function required(path: string, value: string, max: number): string {
  const text = value.trim();
  if (isBlank(text)) throw invalid(path, 'must not be blank');
  if (textLength(text) > max) throw invalid(path, `must be at most ${max} characters`);
  return text;
}

function optional(path: string, value: string | null, max: number): string | null {
  if (value === null || isBlank(value)) return null;
  return required(path, value, max);
}

function checkTimezone(value: string): string {
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat('en-US', { timeZone: value }).resolvedOptions().timeZone;
  } catch {
    throw invalid('timezone', 'must be an IANA time zone such as Europe/Berlin');
  }
  // ICU resolves some current names to old aliases (Asia/Kolkata -> Asia/Calcutta): keep the
  // name the worker chose, fixing only its case, so a catalog filter by that name finds them.
  return resolved.toLowerCase() === value.toLowerCase() ? resolved : value;
}

function checkSkills(skills: string[]): string[] {
  if (skills.length > PROFILE_LIMITS.skills)
    throw invalid('skills', `must hold at most ${PROFILE_LIMITS.skills} skills`);
  const seen = new Set<string>();
  const result: string[] = [];
  skills.forEach((skill, i) => {
    const text = required(`skills/${i}`, skill, PROFILE_LIMITS.skill);
    if (text.includes(',')) throw invalid(`skills/${i}`, 'must not contain a comma');
    if (!seen.has(text.toLowerCase())) result.push(text);
    seen.add(text.toLowerCase());
  });
  return result;
}

function checkLinks(links: Record<string, string>): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [key, value] of Object.entries(links)) {
    if (!(SOCIAL_KEYS as readonly string[]).includes(key)) {
      throw invalid(`socialLinks/${key}`, `is not a known link; use ${SOCIAL_KEYS.join(', ')}`);
    }
    if (value.length > PROFILE_LIMITS.link || !/^https?:\/\/\S+$/.test(value)) {
      throw invalid(
        `socialLinks/${key}`,
        `must be an http(s) URL of at most ${PROFILE_LIMITS.link} characters`,
      );
    }
    result[key] = value;
  }
  return result;
}

function checkRate(value: string | number): bigint {
  try {
    const nano = parseTon(value);
    if (nano > MAX_REWARD_NANO) throw new Error('must be at most 1000000 TON');
    return nano;
  } catch (error) {
    throw invalid('hourlyRate', (error as Error).message);
  }
}
