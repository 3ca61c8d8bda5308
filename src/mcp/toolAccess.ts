import type { ToolDef } from './tool.js';
import { type Toolset, toolsetOf } from './toolsets.js';

/**
 * Everything that decides which tools a connection sees and may call, in one place: the list
 * (`tools/list`) and every call (`tools/call`) ask `refusal`. Today it is the client's choice of
 * toolsets; an API key's scopes and the tools only test keys get belong here too, as more fields
 * of ToolAccess and more rules in `refusal`, so listing and calling can never disagree.
 */
export interface ToolAccess {
  /** The toolsets the client chose (`?toolsets=` on /mcp, HANDOFF_MCP_TOOLSETS for stdio). */
  toolsets: ReadonlySet<Toolset> | 'all';
}

export const EVERY_TOOL: ToolAccess = { toolsets: 'all' };

/** Why `def` is not available to this connection (a sentence for the caller), or undefined. */
export function refusal(def: Pick<ToolDef, 'name'>, access: ToolAccess): string | undefined {
  const toolset = toolsetOf(def.name);
  if (access.toolsets !== 'all' && (!toolset || !access.toolsets.has(toolset))) {
    return (
      `Tool ${def.name} is in the ${toolset} toolset, which this connection did not choose ` +
      `(toolsets=${[...access.toolsets].join(',')}); connect with it in toolsets to use it`
    );
  }
  return undefined;
}

/** Connections with the same access see the same list: its compacted form is built once. */
export function accessKey(access: ToolAccess): string {
  return access.toolsets === 'all' ? 'all' : [...access.toolsets].sort().join(',');
}
