/** An API error: the HTTP status and the API's JSON body (`error` says what went wrong and what to do). */
export class HandoffError extends Error {
  constructor(
    readonly status: number,
    readonly body: { error?: string; [field: string]: unknown } | undefined,
  ) {
    super(`Handoff API ${status}: ${body?.error ?? 'no error message'}${details(body)}`);
    this.name = 'HandoffError';
  }
}

function details(body: HandoffError['body']): string {
  const list = body?.details;
  if (!Array.isArray(list)) return body?.message ? ` (${String(body.message)})` : '';
  return ` (${list.map((d: { path?: string; message?: string }) => `${d.path}: ${d.message}`).join('; ')})`;
}

/** The data of an openapi-fetch result, or a HandoffError with the API's message. */
export function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.error !== undefined || result.data === undefined) {
    throw new HandoffError(result.response.status, result.error as HandoffError['body']);
  }
  return result.data;
}
