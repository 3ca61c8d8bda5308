/**
 * The client thread of the stream scenario: holds the SSE connections open over real sockets,
 * posts chat messages from a fixed number of concurrent loops, and times each message from the
 * moment its POST is written to the moment it arrives on each stream of its chat. Both ends of
 * every latency are read from this thread's clock. Started by streams.ts, never run directly.
 */
import http from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';
import type { ThreadMessage } from './thread.js';
import { inParallel, percentile } from './util.js';

export interface StreamClientsInput {
  baseUrl: string;
  /** One per chat: the task whose chat it is. */
  taskIds: string[];
  /** One per stream: which chat (index into taskIds), whose route, and the credential. */
  streams: { chat: number; side: 'agent' | 'worker'; authorization: string }[];
  /** Who posts the messages (the agent; its Bearer key). */
  posterAuthorization: string;
  concurrency: number;
  warmupS: number;
  durationS: number;
  requestTimeoutS: number;
  /** After the last POST answered, how long the streams get to receive everything. */
  drainTimeoutS: number;
  /** How many streams are being opened at once. */
  openConcurrency: number;
}

export interface StreamClientsResult {
  type: 'result';
  openMs: number;
  /** Messages of the measured run answered 201. */
  messages: number;
  measuredS: number;
  postsPerSecond: number;
  postP50Ms: number;
  postP99Ms: number;
  /** Events of the measured run's messages received, over all streams. */
  events: number;
  eventsPerSecond: number;
  /** POST written -> that message's event read on one stream, over every (message, stream). */
  eventP50Ms: number;
  eventP99Ms: number;
  /** POST written -> the message read on the last of its chat's streams, over every message. */
  allStreamsP50Ms: number;
  allStreamsP99Ms: number;
  /** Statuses of every POST (warm-up and measured); 0 is a connection error or time-out. */
  statusCounts: Record<string, number>;
  /** Warm-up and measured POSTs that did not answer 201. */
  postErrors: number;
  /** (stream, message) pairs of the stream's chat never received; must be 0. */
  lost: number;
  /** Streams that missed at least one message of their chat. */
  streamsWithLosses: number;
  duplicates: number;
  /** Events of another chat, or of no message this thread posted. */
  unexpected: number;
  /** Streams the server closed before the bench did. */
  closedEarly: number;
  /** Last POST answered -> last event read (the measured run). */
  drainMs: number;
}

interface Sent {
  chat: number;
  measured: boolean;
  sentAt: number;
  /** 201, another status, or 0 for a connection error or time-out (also while in flight). */
  status: number;
  respondedAt: number;
  received: number;
  lastAt: number;
}

interface Stream {
  chat: number;
  request: http.ClientRequest;
  seen: Set<number>;
}

const input = workerData as StreamClientsInput;
const port = parentPort!;
const sent: Sent[] = [];
const streams: Stream[] = [];
const perChat = new Array<number>(input.taskIds.length).fill(0);
for (const s of input.streams) perChat[s.chat]!++;
const eventLatencies: number[] = [];
let duplicates = 0;
let unexpected = 0;
let closedEarly = 0;
let closing = false;

// One socket per stream (a stream's response never ends, so keep-alive never reuses one), and a
// small pool for the posts, each socket reused.
const streamAgent = new http.Agent({ keepAlive: true, maxSockets: input.streams.length + 10 });
const postAgent = new http.Agent({ keepAlive: true, maxSockets: input.concurrency });

function onEvent(stream: Stream, data: string): void {
  const at = performance.now();
  let seq = -1;
  try {
    const content = (JSON.parse(data) as { content?: unknown }).content;
    if (typeof content === 'string' && /^m\d+$/.test(content)) seq = Number(content.slice(1));
  } catch {}
  const message = sent[seq];
  if (!message || message.chat !== stream.chat) {
    unexpected++;
    return;
  }
  if (stream.seen.has(seq)) {
    duplicates++;
    return;
  }
  stream.seen.add(seq);
  message.received++;
  if (at > message.lastAt) message.lastAt = at;
  if (message.measured) eventLatencies.push(at - message.sentAt);
}

/** Splits text/event-stream into events; only `data:` lines matter here (ids, retry, comments not). */
function feeder(stream: Stream): (chunk: string) => void {
  let buffer = '';
  return (chunk) => {
    buffer += chunk;
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = block
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5));
      if (data.length > 0) onEvent(stream, data.join('\n'));
    }
  };
}

function openStream(spec: StreamClientsInput['streams'][number]): Promise<void> {
  const prefix = spec.side === 'agent' ? '' : '/worker';
  const url = `${input.baseUrl}${prefix}/chat/${input.taskIds[spec.chat]}/stream`;
  return new Promise((resolve, reject) => {
    const request = http.request(url, {
      agent: streamAgent,
      headers: { accept: 'text/event-stream', authorization: spec.authorization },
    });
    const timer = setTimeout(
      () => request.destroy(new Error(`no answer within ${input.requestTimeoutS} s`)),
      input.requestTimeoutS * 1000,
    );
    request.once('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`opening ${url}: ${error.message}`));
    });
    request.once('response', (response) => {
      clearTimeout(timer);
      response.setEncoding('utf8');
      if (response.statusCode !== 200) {
        let body = '';
        response.on('data', (chunk: string) => {
          body += chunk;
        });
        response.once('end', () =>
          reject(new Error(`opening ${url} answered ${response.statusCode}: ${body.slice(0, 300)}`)),
        );
        return;
      }
      const stream: Stream = { chat: spec.chat, request, seen: new Set() };
      streams.push(stream);
      response.on('data', feeder(stream));
      response.once('close', () => {
        if (!closing) closedEarly++;
      });
      resolve();
    });
    request.end();
  });
}

function post(seq: number, message: Sent): Promise<number> {
  const body = JSON.stringify({ content: `m${seq}` });
  return new Promise((resolve) => {
    const request = http.request(`${input.baseUrl}/chat/${input.taskIds[message.chat]}/messages`, {
      method: 'POST',
      agent: postAgent,
      headers: {
        authorization: input.posterAuthorization,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
      },
    });
    const timer = setTimeout(() => request.destroy(new Error('time-out')), input.requestTimeoutS * 1000);
    request.once('error', () => {
      clearTimeout(timer);
      resolve(0);
    });
    request.once('response', (response) => {
      response.resume();
      response.once('end', () => {
        clearTimeout(timer);
        resolve(response.statusCode ?? 0);
      });
    });
    message.sentAt = performance.now();
    request.end(body);
  });
}

/** `concurrency` closed loops posting round-robin over the chats until `seconds` are up. */
async function postFor(seconds: number, measured: boolean): Promise<{ start: number; end: number }> {
  const start = performance.now();
  const until = start + seconds * 1000;
  const loop = async () => {
    while (performance.now() < until) {
      const seq = sent.length;
      const message: Sent = {
        chat: seq % input.taskIds.length,
        measured,
        sentAt: 0,
        status: 0,
        respondedAt: 0,
        received: 0,
        lastAt: 0,
      };
      sent.push(message);
      message.status = await post(seq, message);
      message.respondedAt = performance.now();
    }
  };
  await Promise.all(Array.from({ length: input.concurrency }, loop));
  return { start, end: performance.now() };
}

/** Events still to come: what every stream of the chat of every 201 message must receive. */
function outstanding(): number {
  let missing = 0;
  for (const m of sent) if (m.status === 201) missing += perChat[m.chat]! - m.received;
  return missing;
}

async function drain(): Promise<void> {
  const until = performance.now() + input.drainTimeoutS * 1000;
  while (outstanding() > 0 && performance.now() < until) await new Promise((r) => setTimeout(r, 10));
}

function waitFor(type: string): Promise<void> {
  return new Promise((resolve) => {
    const listener = (message: ThreadMessage) => {
      if (message.type !== type) return;
      port.off('message', listener);
      resolve();
    };
    port.on('message', listener);
  });
}

const round = (ms: number) => Math.round(ms * 10) / 10;

async function main(): Promise<void> {
  const openStart = performance.now();
  await inParallel(input.streams, input.openConcurrency, openStream);
  const openMs = performance.now() - openStart;
  port.postMessage({ type: 'open', streams: streams.length });
  await waitFor('go');

  await postFor(input.warmupS, false);
  await drain();
  port.postMessage({ type: 'measuring' });
  const run = await postFor(input.durationS, true);
  port.postMessage({ type: 'measured' });
  await drain();

  const measured = sent.filter((m) => m.measured && m.status === 201);
  const lastEvent = Math.max(run.start, ...measured.map((m) => m.lastAt));
  const lastResponse = Math.max(run.start, ...measured.map((m) => m.respondedAt));
  const posts = measured.map((m) => m.respondedAt - m.sentAt).sort((a, b) => a - b);
  const events = eventLatencies.sort((a, b) => a - b);
  const complete = measured
    .filter((m) => m.received === perChat[m.chat])
    .map((m) => m.lastAt - m.sentAt)
    .sort((a, b) => a - b);
  const statusCounts: Record<string, number> = {};
  for (const m of sent) statusCounts[m.status] = (statusCounts[m.status] ?? 0) + 1;
  const ok = new Set<number>();
  for (const [seq, m] of sent.entries()) if (m.status === 201) ok.add(seq);
  let lost = 0;
  let streamsWithLosses = 0;
  for (const stream of streams) {
    let missing = 0;
    for (const seq of ok) if (sent[seq]!.chat === stream.chat && !stream.seen.has(seq)) missing++;
    lost += missing;
    if (missing > 0) streamsWithLosses++;
  }
  const measuredS = (run.end - run.start) / 1000;
  const result: StreamClientsResult = {
    type: 'result',
    openMs: round(openMs),
    messages: measured.length,
    measuredS: round(measuredS),
    postsPerSecond: measured.length / measuredS,
    postP50Ms: round(percentile(posts, 50)),
    postP99Ms: round(percentile(posts, 99)),
    events: events.length,
    eventsPerSecond: events.length / ((lastEvent - run.start) / 1000),
    eventP50Ms: round(percentile(events, 50)),
    eventP99Ms: round(percentile(events, 99)),
    allStreamsP50Ms: round(percentile(complete, 50)),
    allStreamsP99Ms: round(percentile(complete, 99)),
    statusCounts,
    postErrors: sent.length - ok.size,
    lost,
    streamsWithLosses,
    duplicates,
    unexpected,
    closedEarly,
    drainMs: round(Math.max(0, lastEvent - lastResponse)),
  };
  closing = true;
  for (const stream of streams) stream.request.destroy();
  streamAgent.destroy();
  postAgent.destroy();
  port.postMessage(result);
}

main().catch((error: unknown) => {
  port.postMessage({ type: 'error', message: error instanceof Error ? error.message : String(error) });
});
