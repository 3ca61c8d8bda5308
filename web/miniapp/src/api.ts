/** The worker API (`Authorization: tma <initData>`), typed as the server's schemas answer. */
/** A task's currency (format.ts keeps the same union: it is imported without this module). */
export type Currency = 'TON' | 'USDT';

export type TaskStatus =
  | 'OPEN'
  | 'FUNDED'
  | 'OFFERED'
  | 'ASSIGNED'
  | 'IN_PROGRESS'
  | 'REVIEW'
  | 'COMPLETED'
  | 'CANCELLED';

export interface Task {
  id: string;
  title: string;
  description: string;
  /** The currency the reward is paid in; every amount of the task is in it. */
  currency: Currency;
  reward: string;
  status: TaskStatus;
  executionDeadlineDays: number | null;
  deadline?: string;
  executionDeadline: string | null;
  createdAt: string;
  agent: AgentReputation;
  /** Hours the agent has to review a submission before payment is released (issue 25). */
  reviewHours?: number;
  /** When the review window of the waiting submission ends; null when nothing waits. */
  reviewDeadline?: string | null;
  submission?: Submission | null;
  dispute?: Dispute | null;
  location?: TaskLocation | null;
  /** How many people applied (open tasks and a task's own view). */
  applicants?: number;
  /** This worker's own application (open tasks and a task's own view); null: none. */
  yourApplication?: Application['status'] | null;
  /** The rating this worker gave the agent (their own task's view); null: not rated yet. */
  yourRating?: { score: number; comment: string | null } | null;
  /** What was actually paid to this worker and who decided, once the task ended (issue 36). */
  settlement?: TaskSettlement;
  /** In the open tasks: this task stands for its batch, shown as one card (issue 40). */
  batch?: BatchCard;
}

/** A batch as one card: its places, the open ones, and this worker's against maxPerWorker. */
export interface BatchCard {
  id: string;
  count: number;
  placesLeft: number;
  maxPerWorker: number | null;
  yourPlaces: number;
}

/** True when this worker holds as many places of the batch as it allows one person. */
export const batchLimitReached = (batch: BatchCard): boolean =>
  batch.maxPerWorker !== null && batch.yourPlaces >= batch.maxPerWorker;

/** A task's recorded outcome for the worker: read as it is, never recomputed from the reward. */
export interface TaskSettlement {
  workerAmount: string;
  decidedBy: 'agent' | 'operator' | 'auto';
  currency: Currency;
}

/** The agent a worker would work for, with what it has done (absent fields: not known). */
export interface AgentReputation {
  id: string;
  name: string | null;
  tasksPaid?: number;
  averageRating?: number | null;
  ratingCount?: number;
  disputesLost?: number;
  medianReviewHours?: number | null;
}

export interface GeoPoint {
  latitude: number;
  longitude: number;
  accuracyMeters?: number | null;
}

/** Where the task is to be done: a circle on the map. */
export interface TaskLocation extends GeoPoint {
  radiusMeters: number;
  label?: string | null;
}

export interface SubmissionFile {
  fileUrl: string;
  name: string;
  contentType: string;
  size: number;
}

export interface Submission {
  id: string;
  number: number;
  note: string;
  attachments: SubmissionFile[];
  location: (GeoPoint & { withinArea?: boolean | null }) | null;
  withinArea?: boolean | null;
  createdAt: string;
  status: 'PENDING' | 'ACCEPTED' | 'REVISION_REQUESTED' | 'DISPUTED';
  /** Why the agent asked for changes (status REVISION_REQUESTED). */
  revisionReason?: string | null;
}

export interface Statement {
  id?: string;
  by: 'AGENT' | 'WORKER' | 'OPERATOR';
  text: string;
  attachments: SubmissionFile[];
  createdAt: string;
}

export interface Dispute {
  id: string;
  status: 'OPEN' | 'RESOLVED';
  openedBy: 'AGENT' | 'WORKER';
  reason: string;
  statements: Statement[];
  resolution: { workerAmount: string; note: string; resolvedAt?: string } | null;
  createdAt?: string;
}

/** A file stored by POST /worker/upload. */
export interface Uploaded {
  fileUrl: string;
  fileName: string;
  fileSize: number;
  mimeType: string;
}

/** Uploads one file as the worker (multipart, part "file"). */
export async function uploadFile(file: File): Promise<Uploaded> {
  const form = new FormData();
  form.append('file', file, file.name);
  return api<Uploaded>('POST', '/worker/upload', form);
}

export interface Application {
  id: string;
  taskId: string;
  status: 'PENDING' | 'OFFERED' | 'ACCEPTED' | 'DECLINED' | 'REJECTED';
  message: string;
  createdAt: string;
  task?: { title: string; status: TaskStatus; reward: string; currency: Currency };
}

export interface Worker {
  id: string;
  firstName: string;
  lastName: string | null;
  telegramUsername: string | null;
  headline: string;
  bio: string | null;
  country: string | null;
  timezone: string | null;
  skills: string[];
  hourlyRate: string | null;
  available: boolean;
  showTelegram: boolean;
  walletAddress: string | null;
  completedTasks: number;
  totalEarned: string;
  avgRating: number | null;
  ratingCount: number;
  /** The bot's and the app's language ('en', 'ru'). */
  language: string;
  memberSince: string;
}

export interface Message {
  id: string;
  senderType: 'USER' | 'AGENT';
  content: string;
  fileUrl: string | null;
  fileName: string | null;
  fileSize: number | null;
  mimeType: string | null;
  createdAt: string;
}

export interface Payout {
  id: string;
  taskId: string;
  taskTitle: string;
  amount: string;
  currency: Currency;
  status: 'confirmed' | 'pending';
  toAddress: string | null;
  txHash: string | null;
  explorerUrl: string | null;
  createdAt: string;
}

export interface Page<K extends string, T> {
  nextCursor: string | null;
  hasMore: boolean;
  items: T[];
  key: K;
}

/**
 * What kind of failure it was, which decides the sentence the worker reads (errors.* messages)
 * and what they can do: open the app again, try again, change what they sent.
 */
export type ErrorKind =
  | 'offline'
  | 'session'
  | 'server'
  | 'invalid'
  | 'forbidden'
  | 'notFound'
  | 'conflict'
  | 'tooLarge'
  | 'tooMany';

/**
 * An API refusal. `message` is the server's own words, kept for the console and bug reports
 * only: the screen shows the sentence for `kind` (ui.tsx ErrorNote), never raw server text.
 */
export class ApiError extends Error {
  readonly kind: ErrorKind;
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.kind = describeError(status);
  }
}

let authorization = '';

/** Set once at start from the launch parameters' init data. */
export function setInitData(initData: string) {
  authorization = `tma ${initData}`;
}

export function authHeader(): string {
  return authorization;
}

export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers: {
        authorization,
        ...(body === undefined || body instanceof FormData ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : body instanceof FormData ? body : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, 'No connection');
  }
  const text = await response.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    // A proxy's HTML error page: described by its status.
  }
  if (!response.ok) throw new ApiError(response.status, serverWords(response.status, json));
  return json as T;
}

function serverWords(status: number, json: unknown): string {
  const body = (json ?? {}) as { error?: string; message?: string; details?: { message?: string }[] };
  const detail = body.details?.map((d) => d.message).filter(Boolean)[0];
  return [body.message ?? body.error, detail].filter(Boolean).join(': ') || `HTTP ${status}`;
}

/** The kind of a failed request, by its HTTP status (0: no answer at all). */
export function describeError(status: number): ErrorKind {
  if (status === 0) return 'offline';
  if (status === 401) return 'session';
  if (status === 403) return 'forbidden';
  if (status === 404) return 'notFound';
  if (status === 409) return 'conflict';
  if (status === 413) return 'tooLarge';
  if (status === 429) return 'tooMany';
  if (status >= 500) return 'server';
  return 'invalid';
}

/** The task as the worker sees it now, with its submission, dispute and agent. */
export async function loadTask(id: string): Promise<Task> {
  return (await api<{ task: Task }>('GET', `/worker/tasks/${encodeURIComponent(id)}`)).task;
}
