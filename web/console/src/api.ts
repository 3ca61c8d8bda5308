/** The console's JSON API: the session cookie goes along, and every change carries the CSRF token. */
let csrfToken = '';

export function setCsrfToken(token: string) {
  csrfToken = token;
}

let sessionEnded: () => void = () => undefined;

/**
 * Called when the server answers 401 to a signed-in call: the session has ended (signed out
 * elsewhere, dropped for a newer one, expired). The app shows the sign-in page, which unmounts
 * every polling page, so a stale tab stops asking; the server has already cleared the cookie.
 */
export function onSessionEnded(handler: () => void) {
  sessionEnded = handler;
}

/** One field's problem in a 400 (`details`): the body path ("spendPolicy.TON.dailyLimit") and why. */
export interface FieldProblem {
  path: string;
  message: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details: FieldProblem[] = [],
  ) {
    super(message);
  }
}

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are read field by field by the pages
export type Json = any;

export async function api(
  method: string,
  path: string,
  body?: unknown,
  extraHeaders: Record<string, string> = {},
): Promise<Json> {
  const headers: Record<string, string> = { ...extraHeaders };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET') headers['x-csrf-token'] = csrfToken;
  const res = await fetch(`/console/api${path}`, {
    method,
    headers,
    credentials: 'same-origin',
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (res.status === 401 && !path.startsWith('/auth/')) sessionEnded();
  const text = await res.text();
  const json = text ? JSON.parse(text) : {};
  if (!res.ok) {
    const detail = json.details
      ?.map((d: { path: string; message: string }) => `${d.path} ${d.message}`)
      .join('; ');
    throw new ApiError(
      res.status,
      detail ? `${json.error}: ${detail}` : json.error || `HTTP ${res.status}`,
      json.details ?? [],
    );
  }
  return json;
}

/** The agent API, as the signed-in owner's agent. */
export const agentApi = (
  agentId: string,
  method: string,
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
) => api(method, `/agents/${agentId}/api${path}`, body, headers);

/** Operator API calls carry ADMIN_TOKEN (kept in this tab's session storage only). */
export async function adminApi(token: string, path: string, method = 'GET', body?: unknown): Promise<Json> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(path, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = await res.json();
  if (!res.ok) throw new ApiError(res.status, json.message || json.error || `HTTP ${res.status}`);
  return json;
}
