import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode } from './jsonRpcCodes.js';

export const INTERNAL_MESSAGE = 'Internal error; the request was not completed';
const MAX_ISSUES = 10;

/**
 * What a JSON-RPC answer may tell the client. The SDK answers a request whose handler threw with
 * the error's own message as an internal error (-32603): a fault's text ("Maximum call stack size
 * exceeded", a database or Redis message) would reach the client. Such an answer is replaced by a
 * generic one and the original goes to `log`; a message the SDK's own schemas refused (its text
 * is the list of issues) becomes the invalid-params error it is, naming each field.
 */
export function publicMessage(message: JSONRPCMessage, log: (error: unknown) => void): JSONRPCMessage {
  if (!('error' in message) || message.error.code !== ErrorCode.InternalError) return message;
  const issues = schemaIssues(message.error.message);
  if (issues)
    return { ...message, error: { code: ErrorCode.InvalidParams, message: `Invalid params: ${issues}` } };
  log(message.error);
  return { ...message, error: { code: ErrorCode.InternalError, message: INTERNAL_MESSAGE } };
}

/** The issues of a Zod error's message (a JSON array of {path, message}), or null. */
function schemaIssues(text: string): string | null {
  if (!text.startsWith('[')) return null;
  try {
    const issues = JSON.parse(text) as unknown;
    if (!Array.isArray(issues) || issues.length === 0) return null;
    const parts = issues.slice(0, MAX_ISSUES).map((issue: { path?: unknown; message?: unknown }) => {
      const path = Array.isArray(issue.path) ? issue.path.join('/') : '';
      return `${path || 'params'}: ${typeof issue.message === 'string' ? issue.message : 'is invalid'}`;
    });
    return parts.join('; ');
  } catch {
    return null;
  }
}
