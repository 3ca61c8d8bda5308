import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../schema.js';

/** A database handle or an open transaction; repositories take it first, callers own transactions. */
export type Executor = Kysely<Database>;

export type AgentRow = Selectable<Database['agents']>;
export type ApiKeyRow = Selectable<Database['api_keys']>;
export type WorkerRow = Selectable<Database['workers']>;
export type TaskRow = Selectable<Database['tasks']>;
export type BatchRow = Selectable<Database['batches']>;
export type ApprovalRow = Selectable<Database['approvals']>;
export type TaskBonusRow = Selectable<Database['task_bonuses']>;
export type SubmissionRow = Selectable<Database['submissions']>;
export type ApplicationRow = Selectable<Database['applications']>;
export type ChatRow = Selectable<Database['chats']>;
export type TransactionRow = Selectable<Database['transactions']>;
export type ChainTransferRow = Selectable<Database['chain_transfers']>;
export type RatingRow = Selectable<Database['ratings']>;
export type EventRow = Selectable<Database['events']>;
export type MessageRow = Selectable<Database['messages']>;
export type DeliveryRow = Selectable<Database['webhook_deliveries']>;
export type UploadRow = Selectable<Database['uploads']>;
export type WalletChallengeRow = Selectable<Database['wallet_challenges']>;
export type NotificationRow = Selectable<Database['notifications']>;
export type OwnerRow = Selectable<Database['owners']>;
export type OwnerSessionRow = Selectable<Database['owner_sessions']>;
export type DisputeRow = Selectable<Database['disputes']>;
export type DisputeStatementRow = Selectable<Database['dispute_statements']>;

/** A position in a newest-first list: the last item's creation time and id. */
export interface Position {
  createdAt: string;
  id: string;
}
