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

/**
 * POST /tasks' data when the task was created (201). A task above the key's approvalAbove is
 * answered 202 `{approval}` instead (it waits for the owner; follow GET /approvals/:id): that
 * throws here, so code that expects a task never reads an approval as one.
 */
export function createdTask<T extends object>(data: T): Extract<T, { task: unknown }> {
  if ('task' in data) return data as Extract<T, { task: unknown }>;
  const approval = (data as { approval?: { id?: string } }).approval;
  throw new Error(
    `The task was not created: it waits for the owner's approval ${approval?.id ?? ''} (202); follow GET /approvals/:id`,
  );
}
