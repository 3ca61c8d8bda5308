import { randomUUID } from 'node:crypto';
import createClient, { type Client } from 'openapi-fetch';
import { type ChatStreamOptions, chatStream } from './chatStream.js';
import { unwrap } from './errors.js';
import type { paths } from './generated/openapi.js';
import { paginate } from './pagination.js';
import { type RetryOptions, retryingFetch } from './retry.js';

type JsonOf<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  responses: { 200: { content: { 'application/json': infer B } } };
}
  ? B
  : never;
type QueryOf<P extends keyof paths> = paths[P] extends { get: { parameters: { query: infer Q } } }
  ? Q
  : never;
/** A list's filters; the page size is the SDK's to choose unless given. */
type Filters<P extends keyof paths> = Omit<QueryOf<P>, 'cursor' | 'limit'> & { limit?: number };

export type Task = JsonOf<'/agents/tasks', 'get'>['tasks'][number];
export type Transaction = JsonOf<'/transactions', 'get'>['transactions'][number];
export type Application = JsonOf<'/tasks/{id}/applications', 'get'>['applications'][number];
export type Chat = JsonOf<'/chats', 'get'>['chats'][number];
export type Message = JsonOf<'/chat/{taskId}/messages', 'get'>['messages'][number];
export type WorkerListEntry = JsonOf<'/agents/workers', 'get'>['workers'][number];
export type Submission = JsonOf<'/tasks/{id}/submissions', 'get'>['submissions'][number];
export type Batch = JsonOf<'/batches/{id}', 'get'>['batch'];
type BatchBody = NonNullable<paths['/batches']['post']['requestBody']>['content']['application/json'];
type BonusBody = NonNullable<
  paths['/tasks/{id}/bonus']['post']['requestBody']
>['content']['application/json'];

export interface HandoffOptions {
  /** The service, e.g. http://localhost:3000. */
  baseUrl: string;
  /** Your agent API key (hr_...). */
  apiKey: string;
  /** Retries of refused (429, 503) and lost requests; see retryingFetch. */
  retry?: RetryOptions;
  /** Send an Idempotency-Key on every POST that has none (default true). */
  idempotencyKeys?: boolean;
  fetch?: typeof fetch;
}

/** Largest page the API serves: walking a list takes as few requests as it can. */
const PAGE = 100;

/**
 * The Handoff agent API. `api` is the typed client (openapi-fetch over the served OpenAPI
 * document); the methods add what every agent needs on top: lists as async iterables and the
 * chat's live stream.
 */
export class Handoff {
  readonly api: Client<paths>;
  private readonly options: HandoffOptions;
  private readonly fetchFn: typeof fetch;

  constructor(options: HandoffOptions) {
    this.options = { ...options, baseUrl: options.baseUrl.replace(/\/+$/, '') };
    this.fetchFn = options.fetch ?? globalThis.fetch;
    const base = (request: Request) => this.fetchFn(request);
    this.api = createClient<paths>({
      baseUrl: this.options.baseUrl,
      headers: { authorization: `Bearer ${options.apiKey}` },
      fetch: retryingFetch(base, options.retry),
    });
    if (options.idempotencyKeys !== false) {
      // Set before the first attempt, so every retry of a POST carries the same key.
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

  /** The work submitted for one of your tasks, newest first (at most 4: one more per revision). */
  async submissions(taskId: string): Promise<Submission[]> {
    const params = { path: { id: taskId } };
    return unwrap(await this.api.GET('/tasks/{id}/submissions', { params })).submissions;
  }

  /**
   * Sends the waiting submission back with what to change (at most 3 times a task); approve it
   * instead with `api.POST('/tasks/{id}/complete')`.
   */
  async requestRevision(taskId: string, reason: string) {
    const params = { path: { id: taskId } };
    return unwrap(await this.api.POST('/tasks/{id}/revisions', { params, body: { reason } }));
  }

  /** Your tasks, newest first, every page. */
  tasks(filters: Filters<'/agents/tasks'> = {}): AsyncGenerator<Task> {
    return paginate(async (cursor) => {
      const query = { limit: PAGE, ...filters, cursor };
      const page = unwrap(await this.api.GET('/agents/tasks', { params: { query } }));
      return { items: page.tasks, nextCursor: page.nextCursor };
    });
  }

  /** Your batches, newest first, every page (a batch's tasks: `tasks({ batchId })`). */
  batches(): AsyncGenerator<Batch> {
    return paginate(async (cursor) => {
      const page = unwrap(await this.api.GET('/batches', { params: { query: { limit: PAGE, cursor } } }));
      return { items: page.batches, nextCursor: page.nextCursor };
    });
  }

  /**
   * Posts up to 500 tasks at once, each funded from your balance, all or none. Pass the
   * `idempotencyKey` you keep with the batch to retry safely after a lost answer or a restart
   * (one is made per call otherwise, which covers only this call's own retries).
   */
  async createBatch(body: BatchBody, options: { idempotencyKey?: string } = {}) {
    const headers = options.idempotencyKey ? { 'idempotency-key': options.idempotencyKey } : {};
    return unwrap(await this.api.POST('/batches', { body, headers }));
  }

  /** One of your batches, with its tasks counted by status. */
  async batch(batchId: string): Promise<Batch> {
    return unwrap(await this.api.GET('/batches/{id}', { params: { path: { id: batchId } } })).batch;
  }

  /** Refunds every task of the batch still open; says which were not refunded and why. */
  async cancelBatch(batchId: string) {
    return unwrap(await this.api.POST('/batches/{id}/cancel', { params: { path: { id: batchId } } }));
  }

  /**
   * Pays the worker of a completed task a bonus (plus the 30% fee, from your balance). The
   * `idempotencyKey` is required and is yours to keep: the same key always answers with the bonus
   * it paid, so sending it again after a lost answer or a restart never pays twice.
   */
  async payBonus(taskId: string, body: BonusBody, options: { idempotencyKey: string }) {
    if (!options?.idempotencyKey) {
      throw new TypeError('payBonus needs an idempotencyKey: keep one per bonus and reuse it when you retry');
    }
    const params = { path: { id: taskId }, header: { 'Idempotency-Key': options.idempotencyKey } };
    return unwrap(await this.api.POST('/tasks/{id}/bonus', { params, body }));
  }

  /** Your ledger, newest first, every page. */
  transactions(filters: Filters<'/transactions'> = {}): AsyncGenerator<Transaction> {
    return paginate(async (cursor) => {
      const query = { limit: PAGE, ...filters, cursor };
      const page = unwrap(await this.api.GET('/transactions', { params: { query } }));
      return { items: page.transactions, nextCursor: page.nextCursor };
    });
  }

  /** Applications to your task, newest first, every page. */
  applications(taskId: string): AsyncGenerator<Application> {
    return paginate(async (cursor) => {
      const params = { path: { id: taskId }, query: { limit: PAGE, cursor } };
      const page = unwrap(await this.api.GET('/tasks/{id}/applications', { params }));
      return { items: page.applications, nextCursor: page.nextCursor };
    });
  }

  /** Your chats, most recently active first, every page. */
  chats(): AsyncGenerator<Chat> {
    return paginate(async (cursor) => {
      const page = unwrap(await this.api.GET('/chats', { params: { query: { limit: PAGE, cursor } } }));
      return { items: page.chats, nextCursor: page.nextCursor };
    });
  }

  /** A task's chat messages, newest first, every page. */
  messages(taskId: string): AsyncGenerator<Message> {
    return paginate(async (cursor) => {
      const params = { path: { taskId }, query: { limit: PAGE, cursor } };
      const page = unwrap(await this.api.GET('/chat/{taskId}/messages', { params }));
      return { items: page.messages, nextCursor: page.nextCursor };
    });
  }

  /** Workers you can hire that match the filters, every page. */
  workers(filters: Filters<'/agents/workers'>): AsyncGenerator<WorkerListEntry> {
    return paginate(async (cursor) => {
      const query = { limit: PAGE, ...filters, cursor };
      const page = unwrap(await this.api.GET('/agents/workers', { params: { query } }));
      return { items: page.workers, nextCursor: page.nextCursor };
    });
  }

  /**
   * New messages of a task's chat as they arrive (Server-Sent Events), reconnecting with
   * Last-Event-ID after a dropped connection. Start after a known message with `lastEventId`.
   */
  streamChat(taskId: string, options: ChatStreamOptions = {}): AsyncGenerator<Message> {
    return chatStream<Message>(
      {
        url: `${this.options.baseUrl}/chat/${encodeURIComponent(taskId)}/stream`,
        authorization: `Bearer ${this.options.apiKey}`,
        fetch: (input, init) => this.fetchFn(input, init),
      },
      options,
    );
  }
}
