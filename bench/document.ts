import { readFileSync, writeFileSync } from 'node:fs';
import type { Machine } from './machine.js';
import {
  cells,
  cpuRows,
  cpuTable,
  HEADERS,
  markdownTable,
  STREAM_HEADERS,
  streamCells,
  WEBHOOK_HEADERS,
  webhookCells,
} from './report.js';
import type { Results } from './scenarios.js';
import type { BenchSettings } from './settings.js';
import {
  BARE_TASK_SCENARIO,
  BATCHED_CEILING_SCENARIO,
  CEILING_SCENARIO,
  FLOOR_SCENARIO,
  READ_FLOOR_SCENARIO,
  rateOf,
  TARGET_HEADERS,
  targetRows,
} from './targets.js';

export interface Report {
  date: Date;
  settings: BenchSettings;
  machine: Machine;
  results: Results;
  /** Things the reader must know about this run: a skipped database, errors seen. */
  notes: string[];
  /** The 1-minute load average before the first and after the last run. */
  loadAverage: { before: number; after: number };
}

/** Where the time went, by CPU profile: written by hand, kept in the report beside each run. */

function pgbenchLine(r: Results): string {
  const p = r.pgbench;
  if (!p) return 'pgbench did not run in this run.';
  return `pgbench: ${p.tps.toFixed(0)} transactions/s, latency average ${p.latencyAvgMs.toFixed(1)} ms, ${p.transactions} transactions, ${p.failed} failed.`;
}

/**
 * The bare route answering GET /tasks/:id's own body, against the ceiling and against the app:
 * how much of the gap is the answer itself rather than the app's work.
 */
function sameBodyLine(r: Results): string {
  const bare = rateOf(r, CEILING_SCENARIO, 'none');
  const sameBody = rateOf(r, BARE_TASK_SCENARIO, 'none');
  const get = rateOf(r, 'GET /tasks/:id', 'sqlite');
  if (!bare || !sameBody) return '';
  const parts = [
    `For reference, the bare route answering GET /tasks/:id's own body (557 bytes of JSON instead of 17) ran at ${sameBody.toFixed(0)} req/s, ${(sameBody / bare).toFixed(2)} of the ceiling: that much is the answer alone (serialising it, writing it to the socket, the client reading it)`,
  ];
  if (get) parts.push(`SQLite GET /tasks/:id ran at ${(get / sameBody).toFixed(2)} of it`);
  return `${parts.join('; ')}.`;
}

/**
 * The app writes the answers read in one event-loop turn together (src/http/responseBatching.ts);
 * the bare route does not. This line says what the batching alone gives the bare route, so the
 * ratios, which keep Fastify as it ships as their ceiling, can be read with that in mind.
 */
function batchingLine(r: Results): string {
  const bare = rateOf(r, CEILING_SCENARIO, 'none');
  const batched = rateOf(r, BATCHED_CEILING_SCENARIO, 'none');
  if (!bare || !batched) return '';
  const get = rateOf(r, 'GET /tasks/:id', 'sqlite');
  const against = get
    ? ` Against it, SQLite GET /tasks/:id would be ${(get / batched).toFixed(2)} instead of ${(get / bare).toFixed(2)}.`
    : '';
  return `The app writes the answers to the requests it read in one turn of the event loop together, at the end of that turn (src/http/responseBatching.ts); the bare route, as Fastify ships it, writes each as soon as it is made. The same batching added to the bare route ran at ${batched.toFixed(0)} req/s (a single run), ${(batched / bare).toFixed(2)} of the ceiling.${against}`;
}

/**
 * A floor (POST /tasks' statements alone behind a bare route, bench/floor.ts; GET /tasks/:id's
 * reads, bench/readFloor.ts) against the ceiling and against its app route: how much of the
 * route's gap to the ceiling is the database's work, which no work on the app's own code can
 * take away.
 */
function floorLine(r: Results, floorScenario: string, route: string, what: string): string {
  const bare = rateOf(r, CEILING_SCENARIO, 'none');
  const floor = rateOf(r, floorScenario, 'sqlite');
  if (!bare || !floor) return '';
  const app = rateOf(r, route, 'sqlite');
  const against = app ? ` SQLite ${route} ran at ${(app / floor).toFixed(2)} of it.` : '';
  return `${what} It ran at ${floor.toFixed(0)} req/s (the fastest of its runs), ${(floor / bare).toFixed(2)} of the ceiling: as fast as ${route} could be with this schema on this machine.${against}`;
}

/** docs/benchmarks.md, rewritten whole on every run so it never mixes numbers of two runs. */
export function writeMarkdown(file: string, report: Report): void {
  const { settings: s, machine: m, results: r } = report;
  const perChat = Math.round(s.streams / s.streamChats);
  const text = `# Benchmarks

Written by \`npm run bench\` (bench/run.ts) on ${report.date.toISOString()}; every run overwrites
this file, so all numbers below come from one run on the machine described.

## Results
${report.notes.length > 0 ? `\n${report.notes.map((n) => `- ${n}`).join('\n')}\n` : ''}
### Targets

${markdownTable(TARGET_HEADERS, targetRows(r))}

Each rate is divided by its ceiling measured in the same run: the bare Fastify route for the
SQLite rows (the fastest of its runs against the fastest of the app's, all listed above), and for PostgreSQL \`pgbench\` running the transaction POST /tasks commits
(bench/pgbench-create-task.sql: the agent read, the task, ledger and event inserts, the
compare-and-set on the balance) with ${s.connections} clients. ${pgbenchLine(r)}

${sameBodyLine(r)}

${batchingLine(r)}

${floorLine(r, FLOOR_SCENARIO, 'POST /tasks', "The floor under SQLite POST /tasks (bench/floor.ts) is a bare Fastify POST route that runs the five statements POST /tasks commits on the app's schema, straight on better-sqlite3 and committed per event-loop turn as the app does, and nothing else (no authentication, rate limit, validation, idempotency, domain code or Kysely).")}

${floorLine(r, READ_FLOOR_SCENARIO, 'GET /tasks/:id', "The floor under SQLite GET /tasks/:id (bench/readFloor.ts) is its twin for the read path: a bare Fastify GET route that runs the two reads GET /tasks/:id runs (the task with its agent's name; its newest 100 applications with their applicants) on the app's schema, straight on better-sqlite3 in one read transaction per event-loop turn as the app does, and answers the task, and nothing else (no authentication, rate limit, domain code, Kysely or response schema).")}

### Requests

${markdownTable(HEADERS, r.requests.map(cells))}

Req/s is the mean of autocannon's one-per-second samples; p50/p99 are request latencies as the
client saw them, in whole milliseconds (autocannon's resolution); Requests is the count completed
in the measured run; Errors counts responses with any other status than the scenario expects
(201 or 200), connection errors and timeouts.

### Chat messages to ${s.streams.toLocaleString('en')} open streams

${markdownTable(STREAM_HEADERS, r.streams.map(streamCells))}

Messages is the count of \`POST /chat/:taskId/messages\` answered 201 in the measured run, POST/s
that count over the run; POST p50/p99 the time from writing a request to reading its answer.
Events/s is every stream's copy of those messages, received, over the time from the run's start
to the last one received. Event p50/p99 is the time from writing a message's POST to reading
that message on one stream, over every (message, stream) pair; Last stream p50/p99 the same to
the last of its chat's ${perChat} streams, over every message. Lost is the count of (stream, message of
its chat) pairs never received, warm-up included: anything but 0 fails the run, as do a message
received twice, on another chat's stream, or a stream the server closed.

### Webhook deliveries to a local receiver

${markdownTable(WEBHOOK_HEADERS, r.webhooks.map(webhookCells))}

Events is the count of task.funded events created in the run (each \`POST /tasks\` answered 201
commits one, with its delivery), Delivered the distinct delivery ids the receiver got. In the
live run the window runs from the first event's creation to the last delivery's arrival, and
lag is event created (the envelope's timestamp) to delivery received, per delivery. In the
backlog drain the window runs from the release of the held answers to the last arrival, and
Deliveries/s counts only what arrived in it; lag is left out there, as it is mostly time spent
queued on purpose. Duplicates and bad signatures must be 0, every event delivered, and the app's
own delivery records must show all of them delivered and none pending or failed, or the run fails.

### CPU

Where the CPU went during each measured run (from /proc; "bench process" is the server and its
client threads together, "PostgreSQL" the backends connected to the bench database, "other" the
rest of the machine, e.g. other people's test runs). CPU ms/unit is (bench process + PostgreSQL)
per unit of work: a request; a message (its POST and its ${perChat} stream events); an event created
and delivered (live webhooks); a delivery (backlog drain). It includes the load generator's share
(compare the bare Fastify row) and changes much less than the rates when the machine is crowded.
The 1-minute load average was ${report.loadAverage.before.toFixed(1)} before the first run and ${report.loadAverage.after.toFixed(1)} after the last.

${cpuTable(cpuRows(r))}

## Machine

- CPU: ${m.cpuModel}, ${m.cores} cores; memory ${m.memoryGiB} GiB
- OS: ${m.os}, ${m.kernel}
- Node ${m.node}; autocannon ${m.autocannon}
- SQLite ${m.sqlite} (bundled with better-sqlite3); data dir ${m.tempFilesystem}
- PostgreSQL: ${m.postgres}

## Method

- One Node process runs the server under test on its main thread and its clients in one worker
  thread: autocannon (\`workers: 1\`) for the request rows, a thread of the bench's own for the
  streams and the webhooks (bench/streamClients.ts, bench/webhookClients.ts). Server, clients
  and, in the PostgreSQL rows, the PostgreSQL server itself all share the machine's ${m.cores} cores
  over loopback.
- autocannon: ${s.connections} keep-alive connections, pipelining 1, ${s.warmupS} s warm-up run
  (discarded) then ${s.durationS} s measured, request timeout ${s.requestTimeoutS} s. It is a closed
  loop: each connection sends its next request when the previous answer arrives.
- **bare Fastify GET /**: \`fastify()\` with one route returning \`{"hello":"world"}\`. The ceiling
  for Node + Fastify + this load generator on this machine.
- **The floor** (bench/floor.ts, a reference measured in every round, before the app): a bare
  Fastify POST /tasks route with the body's three fields in its schema, running the five
  statements POST /tasks commits (the agent read, the task, ledger and event inserts, the
  compare-and-set on the balance) with the same values on a schema made by the app's migrations,
  straight on better-sqlite3 with the app's pragmas and background checkpoints; the statements
  of one event-loop turn commit together and each answer (POST's body) waits for that commit, as
  in the app. Nothing else runs, so POST /tasks cannot be faster than it on this schema.
- **The read floor** (bench/readFloor.ts, measured in every round after the floor): a bare Fastify
  GET /tasks/:id route running GET's two reads (the statements Kysely compiles for the app's
  repositories) on one task of the same schema, in one read transaction per event-loop turn as
  the app groups reads, answering the task without a response schema. Nothing else runs, so
  GET /tasks/:id cannot be faster than it with these two reads on this schema.
- **Rounds**: SQLite's two request scenarios and the two floors run ${s.rounds} times, each round
  after a run of the ceiling, and each side of a SQLite ratio is the fastest of its ${s.rounds} runs.
  Other tenants of this VM only ever slow a run down (the same build's rates have moved by up to
  2x between runs minutes apart, the bare route's too), so the fastest run is each side's least
  disturbed rate; every run is listed above with the ratio of the medians beside it.
- **Handoff** is built as main.ts builds it (\`openServices\` + \`buildApp\` with its background
  jobs polling), logger off (at \`LOG_LEVEL=info\`, the default, each request writes one access-log
  line: 3-5 us more server CPU per GET /tasks/:id, profile notes' tenth pass), with a fresh temp
  DATA_DIR and sandbox chain per database; on PostgreSQL a fresh schema in the bench database
  (dropped afterwards) and the app's default pool. One agent is created through
  \`POST /admin/agents\` and funded by a real sandbox deposit, and its first task is created under an
  \`Idempotency-Key\`, so the app runs as a service does after its first keyed request.
  Per-key rate limits are raised to the config's maximum (1,000,000,000 a minute) so a 429 never
  stands in for the app; the limiter's bookkeeping still runs on every request. The cap on open
  streams per key is raised to its maximum (100,000) too, webhooks may go to loopback
  (\`WEBHOOK_ALLOW_PRIVATE\`), and the webhook time-out is its maximum (60 s; see the backlog run).
  No Telegram bot token is given, so the app generates one and runs without a bot: worker
  notifications are recorded, not sent. Every scenario of one database runs on the same app, in
  the order of the tables.
- **POST /tasks**: the same JSON body (title, description, reward 0.5 TON) with the agent's
  Bearer key. Each request authenticates the key (SHA-256, then the API key cache; a look-up
  only once per key per \`API_KEY_CACHE_TTL_MS\`), validates the body, and in one transaction
  reads the agent, inserts the task, its ledger row and its event, and escrows 0.65 TON with a
  compare-and-set on the balance. All requests come from one agent,
  so they all update the same balance row: the worst case for write contention.
- **GET /tasks/:id**: one existing task of that agent, read over and over (key from the cache,
  task, its applications, the agent's name); every row is hot in cache.
- **pgbench**: after the PostgreSQL request rows, on the same schema and agent, \`pgbench
  --protocol=extended\` (node-postgres's protocol: parse, bind, execute per statement) with as
  many clients as autocannon has connections, 2 threads, a warm-up and a measured run of the same
  lengths, runs bench/pgbench-create-task.sql. Its backends all update the one agent row, as the
  app's do; the app reaches PostgreSQL through its pool (10 connections) while pgbench holds one
  connection per client.
- **POST message, ${s.streams} streams**: one worker signs in with Telegram init data signed with the
  app's bot token (\`Authorization: tma ...\`) and connects a wallet; ${s.streamChats} tasks of the agent are
  assigned to it (\`POST /tasks\`, the worker's application, the agent's accept), which opens ${s.streamChats}
  chats. ${s.streams} SSE connections are opened over real sockets (a node:http agent with keep-alive,
  one socket per stream), ${perChat} per chat: half \`GET /chat/:taskId/stream\` with the agent's key, half
  \`GET /worker/chat/:taskId/stream\` as the worker; the bench checks that the server holds
  ${s.streams} subscriptions before it posts. Then ${s.connections} closed loops post
  \`POST /chat/:taskId/messages\` as the agent (each a short text carrying its sequence number),
  round-robin over the chats: ${s.warmupS} s warm-up, then ${s.streamDurationS} s measured; after each, the streams get up
  to ${s.drainTimeoutS} s to receive everything. Each post commits the message, touches the chat and queues
  the worker's notification in one transaction, then hands the message to the in-process
  fan-out, which writes one SSE frame to each open stream of that chat. Both ends of every
  latency are read from the client thread's clock. After the run the bench closes every stream
  and checks that the server gives every subscription back.
- **webhooks**: a second agent sets its webhook URL (\`PATCH /agents/webhooks\`) to a node:http
  receiver on 127.0.0.1 in the client thread, which checks every delivery's
  X-Service-Signature (hex HMAC-SHA256 of the raw body with the agent's API key, compared in
  constant time) and counts delivery ids. The app's own background loop delivers (it polls every
  250 ms, takes up to 50 due deliveries, sends them 16 at a time, and polls again at once while
  it finds work). Events come from ${s.connections} closed loops of \`POST /tasks\` for ${s.webhookRunS} s per run, in the
  client thread; every request is awaited, so the 201s count the events exactly.
  *live*: the receiver answers 200 at once while the tasks are created, and the bench waits
  (up to ${s.deliveryTimeoutS} s) until every event is delivered. *backlog drain*: the receiver holds its
  answers while the tasks are created, which stalls the loop on its first attempts (the app
  waits for a whole group before it goes on) while the backlog builds up; then it answers them
  and the loop empties the backlog with nothing else running: its capacity.

### Profiling a request

\`node --cpu-prof --import tsx bench/profile.ts <bare|sqlite|postgres> <get|post> 8\` runs one
request scenario of this bench (same app, same autocannon thread, 50 connections) and writes the
server thread's profile (\`*.0.001.cpuprofile\`); \`npx tsx bench/profileShares.ts <file>\` groups
its self time by layer (SQLite, socket writes, Fastify, our hooks, ...). The eleven profiling
passes of issue 11 (where a request's time went and what each lever saved) are in
bench/profile-notes.md and in this file's git history.

## What the numbers mean, and what they do not

- They compare the scenarios with each other and with the bare ceiling, on this machine, in
  this run. Rates and latency swing widely with whatever else the machine runs (see the CPU
  table): compare runs by CPU ms/unit, and read differences of a few percent as noise.
- They are not a capacity figure for production: there the clients are elsewhere (here the
  load generator shares the server's cores), requests cross a network and TLS, and PostgreSQL
  runs on its own machine with a data set larger than one agent's tasks.
- Latency under a closed loop grows with the connection count; p99 here is the queueing
  behind ${s.connections} concurrent clients, not the time of one request on an idle server. That holds for
  the stream rows too: a message reaches its streams before its POST is answered (the fan-out
  runs after the commit, in the request), so Event latency is the POST's own time plus well
  under a millisecond, and Last stream adds only the writes to the chat's other streams.
- The webhook loop runs on the same event loop as the API. Its live lag is the time a delivery
  waits for the loop to come round, which grows with how busy the API keeps that event loop;
  the backlog drain shows what the loop can do alone.
`;
  writeFileSync(file, text + keptChainSection(file));
}

/** The chain benchmark's section (npm run bench:chain, by hand) survives this rewrite. */
function keptChainSection(file: string): string {
  try {
    const old = readFileSync(file, 'utf8');
    const at = old.indexOf('\n## Chain payouts');
    return at < 0 ? '' : old.slice(at);
  } catch {
    return '';
  }
}

/**
 * Puts `section` (which starts with `heading`) in place of the file's section under that heading,
 * up to the next heading, or before "## Machine" when there is none yet: a partial run's update.
 */
export function replaceSection(file: string, heading: string, section: string): void {
  const old = readFileSync(file, 'utf8');
  const at = old.indexOf(heading);
  if (at >= 0) {
    const rest = old.slice(at + heading.length);
    const next = rest.search(/\n#{2,3} /);
    writeFileSync(file, old.slice(0, at) + section.trimEnd() + (next < 0 ? '\n' : `\n${rest.slice(next)}`));
    return;
  }
  const machine = old.indexOf('\n## Machine');
  const cut = machine < 0 ? old.length : machine;
  writeFileSync(file, `${old.slice(0, cut).trimEnd()}\n\n${section.trimEnd()}\n${old.slice(cut)}`);
}
