/**
 * The words of a failure (the server's refusal or the app's own "No connection..."), to end a
 * sentence that says what did not happen: "Your work was not sent: {reason}".
 */
export function reasonOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error ?? '');
  return text.trim().replace(/\.$/, '');
}
