import type { Kysely } from 'kysely';

// Frozen once released. Graded approval (issue 40, docs/decisions/bonuses-and-graded-approval.md):
// an agent may answer submitted work with an offer to pay part of the reward. The offer lives on
// the task while it waits for the worker (accepted, disputed, or accepted by silence when the
// review window ends): the amount in the task's currency's smallest unit, the agent's reason and
// when it was made. All three are null on a task that never had one; they are set once (the
// compare-and-set that makes the offer requires none yet) and never cleared, so the row keeps
// what was offered after the task ends (its outcome is the settlement columns of 0028).

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('tasks').addColumn('partial_offer_nano', 'bigint').execute();
  await db.schema.alterTable('tasks').addColumn('partial_offer_reason', 'text').execute();
  await db.schema.alterTable('tasks').addColumn('partial_offered_at', 'text').execute();
}
