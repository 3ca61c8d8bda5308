/**
 * The JSON-RPC 2.0 error codes we answer with, as the MCP SDK's ErrorCode has them: importing
 * that enum loads the SDK's types (and Zod) at start-up, which the server otherwise defers to the
 * first POST /mcp.
 */
export const ErrorCode = {
  InvalidParams: -32602,
  InternalError: -32603,
  /** A server-defined code (JSON-RPC leaves -32000 to -32099 to servers): the stdio server cannot reach or use the service. */
  ServerUnavailable: -32050,
} as const;
