import { Type } from 'typebox';
import { MAX_REWARD_NANO, NANO_PER_TON } from '../../domain/money/money.js';
import { LANGUAGES } from '../../domain/workers/language.js';
import { SOCIAL_KEYS } from '../../domain/workers/workerProfile.js';
import { Amount, AmountInput, Nullable, nameSchemas, Timestamp } from './common.js';

const SocialLinks = Type.Object(
  Object.fromEntries(SOCIAL_KEYS.map((k) => [k, Type.Optional(Type.String())])),
  { description: `Links keyed by ${SOCIAL_KEYS.join(', ')}` },
);

export const WorkerListEntry = Type.Object({
  id: Type.String(),
  username: Type.Optional(Type.String({ description: 'Only when the worker shows it' })),
  firstName: Type.String(),
  lastName: Nullable(Type.String()),
  headline: Type.String(),
  country: Nullable(Type.String()),
  timezone: Nullable(Type.String()),
  skills: Type.Array(Type.String()),
  hourlyRate: Nullable(Amount),
  completedTasks: Type.Integer(),
  avgRating: Nullable(Type.Number()),
  ratingCount: Type.Integer(),
  memberSince: Timestamp,
});

const detailFields = {
  id: Type.String(),
  telegramUsername: Type.Optional(Type.String({ description: 'Only when the worker shows it' })),
  firstName: Type.String(),
  lastName: Nullable(Type.String()),
  headline: Type.String(),
  bio: Nullable(Type.String()),
  city: Nullable(Type.String()),
  state: Nullable(Type.String()),
  country: Nullable(Type.String()),
  timezone: Nullable(Type.String()),
  skills: Type.Array(Type.String()),
  socialLinks: SocialLinks,
  hourlyRate: Nullable(Amount),
  available: Type.Boolean(),
  completedTasks: Type.Integer(),
  totalEarned: Amount,
  avgRating: Nullable(Type.Number()),
  ratingCount: Type.Integer(),
  memberSince: Timestamp,
};

export const WorkerDetail = Type.Object(detailFields);

/** The worker's own profile: the detail plus private settings. */
export const WorkerSelf = Type.Object({
  ...detailFields,
  telegramUsername: Nullable(Type.String()),
  walletAddress: Nullable(Type.String()),
  showTelegram: Type.Boolean(),
  language: Type.String({
    description: `The language the bot writes in and the Mini App starts in: ${LANGUAGES.join(', ')}. Taken from Telegram's language_code at sign-in until set with PATCH /worker/me.`,
  }),
  earnings: Type.Object(
    { TON: Amount, USDT: Amount },
    { description: 'What you earned per currency (totalEarned is the TON one); never added together' },
  ),
});

/** The rate filters' bound in TON: the highest hourly rate a profile holds (MAX_REWARD_NANO). */
const MAX_RATE_FILTER_TON = Number(MAX_REWARD_NANO / NANO_PER_TON);

export const CatalogQuery = Type.Object({
  skills: Type.Optional(
    Type.String({ maxLength: 1000, description: 'Comma-separated; workers having all of them' }),
  ),
  country: Type.Optional(Type.String({ maxLength: 100 })),
  timezone: Type.Optional(Type.String({ maxLength: 100 })),
  minRate: Type.Optional(
    Type.Number({
      minimum: 0,
      maximum: MAX_RATE_FILTER_TON,
      description: 'Minimum hourly rate, TON',
    }),
  ),
  maxRate: Type.Optional(
    Type.Number({
      minimum: 0,
      maximum: MAX_RATE_FILTER_TON,
      description: 'Maximum hourly rate, TON',
    }),
  ),
  available: Type.Boolean({ default: true }),
  sort: Type.Enum(['completed', 'rating'], {
    default: 'completed',
    description: 'completed: most completed tasks first; rating: best average rating first (unrated last)',
  }),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
  cursor: Type.Optional(Type.String({ maxLength: 400 })),
});

const optionalText = (max: number) => Type.Optional(Nullable(Type.String({ maxLength: max })));

export const WorkerPatchBody = Type.Object({
  firstName: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  lastName: optionalText(100),
  headline: optionalText(200),
  bio: optionalText(2000),
  city: optionalText(100),
  state: optionalText(100),
  country: optionalText(100),
  timezone: optionalText(100),
  skills: Type.Optional(Type.Array(Type.String({ maxLength: 50 }), { maxItems: 20 })),
  socialLinks: Type.Optional(Type.Record(Type.String({ maxLength: 20 }), Type.String({ maxLength: 300 }))),
  hourlyRate: Type.Optional(Nullable(AmountInput)),
  available: Type.Optional(Type.Boolean()),
  showTelegram: Type.Optional(Type.Boolean()),
  language: Type.Optional(
    Type.String({
      maxLength: 20,
      description: `One of ${LANGUAGES.join(', ')}; once set, Telegram's language_code no longer changes it`,
    }),
  ),
});

nameSchemas({ WorkerListEntry, WorkerDetail, WorkerSelf, WorkerPatchBody });
