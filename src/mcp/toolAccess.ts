import { hasScope, type Scope } from '../domain/agents/keyScopes.js';
import { scopeOfRoute } from '../http/routeScopes.js';
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
  /** The calling API key's scopes as stored (null: every scope). */
  scopes: string | null;
}

export const EVERY_TOOL: ToolAccess = { toolsets: 'all', scopes: null };

/** Tools without a REST route, and the scope each needs. */
const ROUTELESS_TOOL_SCOPES: Record<string, Scope> = { get_deposit_info: 'money' };

/** The scope a tool needs: its route's (src/http/routeScopes.ts), else its own above. */
export function scopeOfTool(def: Pick<ToolDef, 'name' | 'route'>): Scope | undefined {
  if (def.route) {
    const space = def.route.indexOf(' ');
    return scopeOfRoute(def.route.slice(0, space), def.route.slice(space + 1));
  }
  return ROUTELESS_TOOL_SCOPES[def.name];
}

/** Why `def` is not available to this connection (a sentence for the caller), or undefined. */
export function refusal(def: Pick<ToolDef, 'name' | 'route'>, access: ToolAccess): string | undefined {
  if (access.scopes !== null) {
    const scope = scopeOfTool(def);
    if (!scope || !hasScope(access.scopes, scope)) {
      return `Tool ${def.name} needs the ${scope ?? 'unknown'} scope, which this API key lacks; ask the agent's owner to grant it`;
    }
  }
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
  const toolsets = access.toolsets === 'all' ? 'all' : [...access.toolsets].sort().join(',');
  return `${toolsets};${access.scopes ?? 'all'}`;
}
