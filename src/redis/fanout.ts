import type { MessageRow } from '../db/repositories/executor.js';
import {
  type ChatListener,
  InProcessFanout,
  type MessageFanout,
  type PublishedMessage,
} from '../events/fanout.js';
import type { RedisLink } from './link.js';

/** What goes over a chat's channel. */
interface Wire {
  origin: string;
  previousId: string | null;
  message: MessageRow;
}

/**
 * Chat fan-out across instances: a message is handed to this instance's streams at once and
 * published on its task's channel (`<prefix>chat:<taskId>`) for the others, which subscribe to a
 * task's channel while one of their streams is open on it. Order between instances is not
 * trusted: each message carries its predecessor's id and a stream that did not send that one
 * reads the database (sse.ts). When the subscription connection comes back after an outage, the
 * channels are subscribed again and every stream here is told to catch up from the database.
 */
export class RedisFanout implements MessageFanout {
  private readonly local = new InProcessFanout();
  /** Each subscribed task's SUBSCRIBE, so a second stream waits for the first one's. */
  private readonly subscribing = new Map<string, Promise<void>>();
  private readonly channelPrefix: string;

  constructor(private readonly link: RedisLink) {
    this.channelPrefix = `${link.prefix}chat:`;
    link.subscriber.on('message', (channel: string, payload: string) => this.received(channel, payload));
    link.subscriber.on('ready', () => void this.resubscribe());
    // Redis answered again without the connection having dropped (it hung): publications of the
    // meantime may be lost all the same.
    link.onRecovered(() => void this.resubscribe());
  }

  publish(published: PublishedMessage): void {
    this.local.publish(published);
    if (!this.link.usable()) return;
    const wire: Wire = { origin: this.link.instanceId, ...published };
    // After the commit nothing may throw to the poster: the message is stored either way.
    let payload: string;
    try {
      payload = JSON.stringify(wire);
    } catch {
      return;
    }
    this.link.client
      .publish(this.channelPrefix + published.message.task_id, payload)
      .catch((error) => this.link.failed(error));
  }

  async subscribe(taskId: string, listener: ChatListener): Promise<() => void> {
    const remove = this.local.add(taskId, listener);
    let subscribed = this.subscribing.get(taskId);
    if (!subscribed) {
      subscribed = this.listen([taskId]);
      this.subscribing.set(taskId, subscribed);
    }
    await subscribed;
    return () => {
      if (!remove()) return;
      this.subscribing.delete(taskId);
      if (this.link.subscriber.status === 'ready') {
        this.link.subscriber.unsubscribe(this.channelPrefix + taskId).catch(() => {});
      }
    };
  }

  subscriberCount(taskId?: string): number {
    return this.local.subscriberCount(taskId);
  }

  /** SUBSCRIBE now if connected; otherwise the reconnect subscribes (and streams catch up then). */
  private async listen(taskIds: string[]): Promise<void> {
    if (taskIds.length === 0 || this.link.subscriber.status !== 'ready') return;
    try {
      await this.link.subscriber.subscribe(...taskIds.map((id) => this.channelPrefix + id));
    } catch (error) {
      this.link.failed(error);
    }
  }

  private async resubscribe(): Promise<void> {
    const tasks = this.local.tasks();
    await this.listen(tasks);
    // Whatever was published while the subscription was down is in the database.
    this.local.resync();
  }

  /** A message from another instance (this one's own were delivered when published). */
  private received(channel: string, payload: string): void {
    if (!channel.startsWith(this.channelPrefix)) return;
    const taskId = channel.slice(this.channelPrefix.length);
    let wire: Wire;
    try {
      wire = JSON.parse(payload) as Wire;
    } catch {
      return;
    }
    if (wire?.origin === this.link.instanceId || wire?.message?.task_id !== taskId) return;
    this.local.publish({ message: wire.message, previousId: wire.previousId ?? null });
  }
}
