import { invalid } from '../errors.js';

/**
 * What an API key may do (issue 38, docs/decisions/owner-spend-policy.md). Every agent route names
 * the one scope it needs (src/http/routeScopes.ts); a key without it is refused with 403. A key has
 * every scope unless its owner or the operator narrowed it.
 */
export const SCOPES = ['tasks:read', 'tasks:write', 'chat', 'money', 'webhooks', 'workers:read'] as const;
export type Scope = (typeof SCOPES)[number];

export const SCOPE_MEANINGS: Record<Scope, string> = {
  'tasks:read': 'read tasks, applications, submissions, disputes, ratings, the ledger and the profile',
  'tasks:write': 'create (escrow), change and cancel tasks, accept applications, review work, dispute, rate',
  chat: 'read and send chat messages and files',
  money: 'complete (pay), refund and top up',
  webhooks: 'set and test the webhook URL',
  'workers:read': 'browse the worker catalog',
};

export function isScope(value: unknown): value is Scope {
  return (SCOPES as readonly unknown[]).includes(value);
}

/** The stored form (null: every scope) as a list, in SCOPES order. */
export function scopesOf(stored: string | null): Scope[] {
  if (stored === null) return [...SCOPES];
  const set = new Set(stored.split(','));
  return SCOPES.filter((s) => set.has(s));
}

/** Whether a key with the stored scopes has `scope`. */
export function hasScope(stored: string | null, scope: Scope): boolean {
  return stored === null || stored.split(',').includes(scope);
}

/** Checks a requested list: known scopes only, no repeats; every scope is stored as null. */
export function storedScopes(requested: readonly string[]): string | null {
  const seen = new Set<string>();
  for (const [i, scope] of requested.entries()) {
    if (!isScope(scope)) throw invalid(`scopes.${i}`, `is not a scope; the scopes are ${SCOPES.join(', ')}`);
    if (seen.has(scope)) throw invalid(`scopes.${i}`, `${scope} is listed twice`);
    seen.add(scope);
  }
  if (seen.size === SCOPES.length) return null;
  return SCOPES.filter((s) => seen.has(s)).join(',');
}
