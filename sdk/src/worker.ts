import { createHmac, randomUUID } from 'node:crypto';
import createClient, { type Client } from 'openapi-fetch';
import { unwrap } from './errors.js';
import type { components, paths } from './generated/openapi.js';
import { paginate } from './pagination.js';
import { type RetryOptions, retryingFetch } from './retry.js';

export type WorkerTask = components['schemas']['WorkerTask'];
export type WorkerSelf = components['schemas']['WorkerSelf'];
export type WorkerApplication = components['schemas']['WorkerApplication'];
export type WalletBody = components['schemas']['WalletBody'];
export type Submission = components['schemas']['Submission'];
export type SubmissionBody = components['schemas']['SubmissionBody'];
type Message = components['schemas']['Message'];

/** The Telegram user the init data names (Telegram's own field names). */
export interface TelegramUser {
  id: number;
  first_name: string;
  last_name?: string;
  username?: string;
}

/**
 * Mini App init data for `user`, signed the way Telegram signs it for the bot whose token is
 * `botToken` (HMAC-SHA256 keyed by HMAC-SHA256("WebAppData", token)). For tests and local
 * development only: whoever holds the bot token can sign in as any Telegram user, so never ship
 * the token to a client. The service accepts init data for 24 hours after `authDate`.
 */
export function signWorkerInitData(
  botToken: string,
  user: TelegramUser,
  authDate: Date = new Date(),
): string {
  const fields: Record<string, string> = {
    auth_date: String(Math.floor(authDate.getTime() / 1000)),
    query_id: `sdk${randomUUID().replaceAll('-', '')}`,
    user: JSON.stringify({
      id: user.id,
      first_name: user.first_name,
      last_name: user.last_name,
      username: user.username,
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

export interface HandoffWorkerOptions {
  /** The service, e.g. http://localhost:3000. */
  baseUrl: string;
  /** Mini App init data (what Telegram gives the app, or signWorkerInitData in tests). */
  initData: string;
  retry?: RetryOptions;
  /** Send an Idempotency-Key on every POST that has none (default true). */
  idempotencyKeys?: boolean;
  fetch?: typeof fetch;
}

const PAGE = 100;

/**
 * The worker side of Handoff (what the Mini App does), for agent developers who play the worker
 * in their own tests: sign in with init data, connect a wallet, find tasks, apply, take offers
 * and chat. `api` is the typed client for every worker route.
 */
export class HandoffWorker {
  readonly api: Client<paths>;

  constructor(options: HandoffWorkerOptions) {
    const fetchFn = options.fetch ?? globalThis.fetch;
    this.api = createClient<paths>({
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
      headers: { authorization: `tma ${options.initData}` },
      fetch: retryingFetch((request: Request) => fetchFn(request), options.retry),
    });
    if (options.idempotencyKeys !== false) {
      this.api.use({
        onRequest: ({ request }) => {
          if (request.method === 'POST' && !request.headers.has('idempotency-key')) {
            request.headers.set('idempotency-key', randomUUID());
          }
          return request;
        },
      });
    }
  }

  /** A worker signed in with init data signed from the bot token (tests and development only). */
  static fromBotToken(options: {
    baseUrl: string;
    botToken: string;
    user: TelegramUser;
    /** The init data's auth_date: the service's clock, when a test moves it. */
    authDate?: Date;
    fetch?: typeof fetch;
  }): HandoffWorker {
    return new HandoffWorker({
      baseUrl: options.baseUrl,
      initData: signWorkerInitData(options.botToken, options.user, options.authDate),
      fetch: options.fetch,
    });
  }

  /** The worker's profile; the first call registers the worker. */
  async me(): Promise<WorkerSelf> {
    return unwrap(await this.api.GET('/worker/me')).worker;
  }

  /**
   * Connects the payout wallet: a TON Connect proof, or (TON_NETWORK=sandbox only) a bare
   * `{address}`, which a string stands for.
   */
  async setWallet(wallet: string | WalletBody): Promise<WorkerSelf> {
    const body = typeof wallet === 'string' ? { address: wallet } : wallet;
    return unwrap(await this.api.PUT('/worker/me/wallet', { body: body as WalletBody })).worker;
  }

  /** Open tasks anyone may apply to, every page. */
  tasks(): AsyncGenerator<WorkerTask> {
    return paginate(async (cursor) => {
      const page = unwrap(
        await this.api.GET('/worker/tasks', { params: { query: { limit: PAGE, cursor } } }),
      );
      return { items: page.tasks, nextCursor: page.nextCursor };
    });
  }

  async apply(taskId: string, message: string): Promise<WorkerApplication> {
    const params = { path: { id: taskId } };
    return unwrap(await this.api.POST('/worker/tasks/{id}/applications', { params, body: { message } }))
      .application;
  }

  /** Tasks agents offered to this worker directly, every page. */
  offers(): AsyncGenerator<WorkerTask> {
    return paginate(async (cursor) => {
      const page = unwrap(
        await this.api.GET('/worker/offers', { params: { query: { limit: PAGE, cursor } } }),
      );
      return { items: page.tasks, nextCursor: page.nextCursor };
    });
  }

  async acceptOffer(taskId: string) {
    return unwrap(await this.api.POST('/worker/offers/{taskId}/accept', { params: { path: { taskId } } }));
  }

  async declineOffer(taskId: string) {
    return unwrap(await this.api.POST('/worker/offers/{taskId}/decline', { params: { path: { taskId } } }));
  }

  /** One task: open to applicants, offered to this worker, or its own (with its latest submission). */
  async task(taskId: string): Promise<WorkerTask> {
    return unwrap(await this.api.GET('/worker/tasks/{id}', { params: { path: { id: taskId } } })).task;
  }

  /**
   * Hands in the work of an assigned task for review (a note, fileUrls uploaded first, a place):
   * the task moves to REVIEW and is approved, and paid, when the agent stays silent until its
   * reviewDeadline.
   */
  async submit(taskId: string, work: SubmissionBody): Promise<{ submission: Submission; task: WorkerTask }> {
    const params = { path: { id: taskId } };
    return unwrap(await this.api.POST('/worker/tasks/{id}/submissions', { params, body: work }));
  }

  /** This worker's submissions of a task, newest first (at most 4). */
  async submissions(taskId: string): Promise<Submission[]> {
    const params = { path: { id: taskId } };
    return unwrap(await this.api.GET('/worker/tasks/{id}/submissions', { params })).submissions;
  }

  /** A task's chat with its agent, newest first, every page. */
  messages(taskId: string): AsyncGenerator<Message> {
    return paginate(async (cursor) => {
      const params = { path: { taskId }, query: { limit: PAGE, cursor } };
      const page = unwrap(await this.api.GET('/worker/chat/{taskId}/messages', { params }));
      return { items: page.messages, nextCursor: page.nextCursor };
    });
  }

  async sendMessage(taskId: string, text: string): Promise<Message> {
    const params = { path: { taskId } };
    return unwrap(await this.api.POST('/worker/chat/{taskId}/messages', { params, body: { content: text } }))
      .message;
  }
}
