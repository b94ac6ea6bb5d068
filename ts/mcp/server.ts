/** The MCP server factory: one server, two tools. */
import { readFileSync } from 'node:fs';

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';

import type { McpContext } from './context.js';
import { registerFetchTool } from './fetch-tool.js';
import { registerSearchTool } from './search-tool.js';

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

export function createMcpServer(ctx: McpContext): McpServer {
  const server = new McpServer(
    { name: 'rye-search', version: VERSION },
    { instructions: 'Search RYE directives, tools and knowledge with rye_search; load one verified item with rye_fetch (item_id).' },
  );
  registerSearchTool(server, ctx);
  registerFetchTool(server, ctx);
  return server;
}
