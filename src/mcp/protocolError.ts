/**
 * A JSON-RPC error for the SDK to send: its `code` and its bare `message`. Not McpError: that
 * class writes "MCP error <code>: " into its message, and the client's McpError adds the same
 * prefix again ("MCP error -32602: MCP error -32602: Unknown tool ...").
 */
export function protocolError(code: number, message: string): Error & { code: number } {
  return Object.assign(new Error(message), { code });
}
