export type { ChatStreamOptions } from './chatStream.js';
export {
  type Application,
  type Batch,
  type Chat,
  Handoff,
  type HandoffOptions,
  type Message,
  type Submission,
  type Task,
  type Transaction,
  type WorkerListEntry,
} from './client.js';
export { createdTask, HandoffError, unwrap } from './errors.js';
export type { components, paths, webhooks } from './generated/openapi.js';
export { type Page, paginate } from './pagination.js';
export { type RetryOptions, retryAfterMs, retryingFetch } from './retry.js';
export {
  type VerifyWebhookInput,
  verifyWebhook,
  type WebhookEvent,
  type WebhookScheme,
  WebhookVerificationError,
} from './webhooks.js';
export {
  HandoffWorker,
  type HandoffWorkerOptions,
  type SubmissionBody,
  signWorkerInitData,
  type TelegramUser,
  type WalletBody,
  type WorkerApplication,
  type WorkerSelf,
  type WorkerTask,
} from './worker.js';
