/** The MCP server factory: one server, two tools. */
import { readFileSync } from 'node:fs';

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

import { errorPayload, fetchFailure } from '../errors.js';

import type { McpContext } from './context.js';
import { errorResult } from './errors.js';
import { registerFetchTool } from './fetch-tool.js';
import { registerItemResources } from './item-resources.js';
import { answerInvalidParams } from './request-params.js';
import { invalidArguments } from './schemas.js';
import { registerSearchTool } from './search-tool.js';

const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

export function createMcpServer(ctx: McpContext): McpServer {
  const server = new McpServer(
    { name: 'rye-search', version: VERSION },
    {
      instructions:
        'Search RYE directives, tools and knowledge with rye_search; load one verified item with rye_fetch (item_id).',
    },
  );
  registerSearchTool(server, ctx);
  registerFetchTool(server, ctx);
  registerItemResources(server, ctx);
  typeSchemaFailures(server);
  // Over stdio and HTTP alike: whatever transport the server is connected to.
  const connect = server.connect.bind(server);
  server.connect = async (transport) => {
    await connect(transport);
    answerInvalidParams(transport);
  };
  return server;
}

/**
 * The SDK answers arguments that fail the input schema (a missing query, `limit: 101`, an unknown
 * key) with plain text. Every other failure carries a `code` and a `hint`: so do these, in each
 * tool's failure shape. (`createToolError` is the SDK's one place for such answers; the SDK
 * version is pinned and `test/mcp.test.mjs` checks the shape.)
 */
function typeSchemaFailures(server: McpServer): void {
  const target = server as unknown as { createToolError: (message: string) => CallToolResult };
  const plain = target.createToolError.bind(server);
  target.createToolError = (message: string) => {
    const tool = /^(?:MCP error -?\d+: )?Input validation error: Invalid arguments for tool (\w+): ([\s\S]*)$/.exec(
      message,
    );
    if (!tool) return plain(message);
    const error = invalidArguments(tool[1]!, tool[2]!.trim());
    return errorResult(tool[1] === 'rye_fetch' ? { ...fetchFailure(error) } : { error: errorPayload(error) });
  };
}
