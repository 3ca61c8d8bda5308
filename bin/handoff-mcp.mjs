#!/usr/bin/env node
// The stdio MCP server, runnable from any working directory (MCP clients launch it from theirs):
// tsx compiles the TypeScript source on the fly. Settings: HANDOFF_URL, HANDOFF_API_KEY.
import { register } from 'tsx/esm/api';

register();
await import('../src/mcp/stdio.ts');
