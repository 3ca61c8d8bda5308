import type { ChatRow, MessageRow, Position } from '../db/repositories/executor.js';
import { messagesSince, REPLAY_MAX } from '../domain/chat/chat.js';
import type { DomainContext } from '../domain/context.js';
import type { PublishedMessage } from '../events/fanout.js';

type Work = PublishedMessage | 'resync';

/**
 * What one chat stream sends, in the chat's (createdAt, id) order and each message once. Live
 * messages and resynchronisations queue up and are handled one at a time: a live message that
 * follows the last one sent (its previousId) goes out at once; one already sent is skipped; any
 * other means something was missed or arrived out of order (two instances' publications can),
 * so the chat is read from the database after the last one sent. That is exact because a chat's
 * messages commit in their order (postMessage).
 */
export class ChatStreamQueue {
  private readonly work: Work[] = [];
  private position: Position | null = null;
  private started = false;
  private draining = false;
  private ended = false;

  constructor(
    private readonly ctx: DomainContext,
    private readonly chat: ChatRow,
    private readonly write: (message: MessageRow) => void,
    /** The database did not answer during a catch-up: the stream should end (the client resumes). */
    private readonly failed: (error: unknown) => void,
  ) {}

  push(item: Work): void {
    if (this.ended) return;
    this.work.push(item);
    this.kick();
  }

  /** Starts sending after `position` (null: from the chat's first message); `replay` reads the missed ones first. */
  start(position: Position | null, replay: boolean): void {
    this.position = position;
    this.started = true;
    if (replay) this.work.unshift('resync');
    this.kick();
  }

  end(): void {
    this.ended = true;
    this.work.length = 0;
  }

  private kick(): void {
    if (!this.started || this.draining || this.ended || this.work.length === 0) return;
    this.draining = true;
    void this.drain().finally(() => {
      this.draining = false;
      this.kick();
    });
  }

  private async drain(): Promise<void> {
    try {
      while (!this.ended && this.work.length > 0) {
        const item = this.work.shift()!;
        if (item === 'resync') await this.catchUp();
        else await this.live(item);
      }
    } catch (error) {
      this.end();
      this.failed(error);
    }
  }

  private async live({ message, previousId }: PublishedMessage): Promise<void> {
    // Subscriptions are per task; a task reassigned after expiry has a new chat this one must not see.
    if (message.chat_id !== this.chat.id) return;
    if (this.position && !isAfter(message, this.position)) return;
    if (previousId === (this.position?.id ?? null)) this.send(message);
    else await this.catchUp();
  }

  /** Everything after what was last sent, from the database, page by page. */
  private async catchUp(): Promise<void> {
    for (;;) {
      const page = await messagesSince(this.ctx, this.chat, this.position);
      for (const message of page) if (!this.ended) this.send(message);
      if (page.length < REPLAY_MAX || this.ended) return;
    }
  }

  private send(message: MessageRow): void {
    this.write(message);
    this.position = { createdAt: message.created_at, id: message.id };
  }
}

/** Whether a message comes after a position in the chat's (createdAt, id) order. */
function isAfter(message: MessageRow, position: Position): boolean {
  return (
    message.created_at > position.createdAt ||
    (message.created_at === position.createdAt && message.id > position.id)
  );
}
