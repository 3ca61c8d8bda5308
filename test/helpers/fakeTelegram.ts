import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local fake of the Telegram Bot API over real HTTP: `POST /bot<token>/<method>` with a JSON
 * body, answered `{ok: true, result}` in the shapes grammy expects, or `{ok: false, error_code,
 * description}` when a test scripts a failure. Every call is recorded, so tests check what the
 * bot sent (chat ids, texts, buttons) the way Telegram would have received it.
 */

export interface BotApiCall {
  token: string;
  method: string;
  // biome-ignore lint/suspicious/noExplicitAny: parameters are checked by assertions, not types
  body: Record<string, any>;
}

/** A message the bot sent (sendMessage), in the Bot API's own field names. */
export interface SentMessage {
  chatId: number | string;
  text: string;
  parseMode: string | undefined;
  // biome-ignore lint/suspicious/noExplicitAny: reply_markup is checked by assertions
  replyMarkup: any;
}

interface Failure {
  status: number;
  description: string;
  retryAfter?: number;
}

const DESCRIPTIONS: Record<number, string> = {
  400: 'Bad Request: chat not found',
  403: 'Forbidden: bot was blocked by the user',
  429: 'Too Many Requests: retry after 1',
  500: 'Internal Server Error',
};

export class FakeTelegram {
  readonly calls: BotApiCall[] = [];
  private failures: Failure[] = [];
  private hanging = false;
  private readonly held: { call: BotApiCall; res: ServerResponse }[] = [];
  private nextMessageId = 1;

  private constructor(
    private readonly server: Server,
    /** Pass as TELEGRAM_API_ROOT (grammy's `apiRoot`). */
    readonly apiRoot: string,
  ) {}

  static async start(): Promise<FakeTelegram> {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    const fake = new FakeTelegram(server, `http://127.0.0.1:${port}`);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => fake.receive(req.url ?? '', Buffer.concat(chunks).toString('utf8'), res));
    });
    return fake;
  }

  private receive(url: string, raw: string, res: ServerResponse) {
    const match = /^\/bot([^/]+)\/(\w+)$/.exec(url.split('?')[0] ?? '');
    if (!match) return reply(res, 404, { ok: false, error_code: 404, description: 'Not Found' });
    const call: BotApiCall = { token: match[1] as string, method: match[2] as string, body: parseBody(raw) };
    this.calls.push(call);
    if (this.hanging) {
      this.held.push({ call, res });
      return;
    }
    this.answer(call, res);
  }

  private answer(call: BotApiCall, res: ServerResponse) {
    const failure = this.failures.shift();
    if (failure) {
      return reply(res, failure.status, {
        ok: false,
        error_code: failure.status,
        description: failure.description,
        ...(failure.retryAfter === undefined ? {} : { parameters: { retry_after: failure.retryAfter } }),
      });
    }
    const result = this.result(call);
    if (result === undefined) {
      return reply(res, 404, { ok: false, error_code: 404, description: 'Not Found: method not found' });
    }
    reply(res, 200, { ok: true, result });
  }

  /** The Bot API's answer to each method the service uses. */
  private result(call: BotApiCall): unknown {
    const { body } = call;
    const date = Math.floor(Date.now() / 1000);
    const chat = { id: body.chat_id, type: 'private', first_name: 'Worker' };
    switch (call.method) {
      case 'getMe':
        return {
          id: Number(call.token.split(':')[0]),
          is_bot: true,
          first_name: 'Handoff',
          username: 'handoff_test_bot',
          can_join_groups: false,
          can_read_all_group_messages: false,
          supports_inline_queries: false,
        };
      case 'sendMessage':
        return {
          message_id: this.nextMessageId++,
          date,
          chat,
          text: body.text,
          ...(body.reply_markup ? { reply_markup: body.reply_markup } : {}),
        };
      case 'editMessageText':
        return { message_id: body.message_id, date, edit_date: date, chat, text: body.text };
      case 'editMessageReplyMarkup':
        return { message_id: body.message_id, date, edit_date: date, chat, text: '' };
      case 'answerCallbackQuery':
      case 'setWebhook':
      case 'deleteWebhook':
        return true;
      default:
        return undefined;
    }
  }

  /** The next `count` calls fail with `status` (429 carries retry_after), later ones succeed. */
  failNext(count: number, status = 500, retryAfter?: number): this {
    for (let i = 0; i < count; i++) {
      this.failures.push({
        status,
        description: DESCRIPTIONS[status] ?? `Error ${status}`,
        retryAfter: retryAfter ?? (status === 429 ? 1 : undefined),
      });
    }
    return this;
  }

  /** Calls from now on are read and recorded but not answered until `release()`. */
  hang(): this {
    this.hanging = true;
    return this;
  }

  /** Answers the held calls (normally, or as scripted) and stops holding. */
  release(): void {
    this.hanging = false;
    for (const { call, res } of this.held.splice(0)) this.answer(call, res);
  }

  callsOf(method: string): BotApiCall[] {
    return this.calls.filter((c) => c.method === method);
  }

  /** Messages sent with sendMessage, in arrival order (failed attempts included). */
  sent(): SentMessage[] {
    return this.callsOf('sendMessage').map((c) => ({
      chatId: c.body.chat_id,
      text: c.body.text,
      parseMode: c.body.parse_mode,
      replyMarkup: c.body.reply_markup,
    }));
  }

  clear(): void {
    this.calls.length = 0;
    this.failures = [];
  }

  async close(): Promise<void> {
    for (const { res } of this.held.splice(0)) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

function parseBody(raw: string): Record<string, unknown> {
  if (raw === '') return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {};
  } catch {
    return { raw };
  }
}

function reply(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
