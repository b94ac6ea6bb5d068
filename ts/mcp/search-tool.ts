/** The `rye_search` tool: parameters and response as in the seeds. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';

import type { McpContext } from './context.js';
import { echo } from '../errors.js';
import { errorPayload, errorResult } from './errors.js';
import { envelopeSchema, searchInput } from './schemas.js';
import { searchAnswer, toSearchOptions } from './search-answer.js';

export function registerSearchTool(server: McpServer, ctx: McpContext): void {
  server.registerTool(
    'rye_search',
    {
      title: 'Search RYE items',
      description:
        'Find the directive, tool or knowledge item for a need; load it with rye_fetch. ' +
        'Ask in plain words (matched by meaning too) or query syntax. ' +
        'Results: kind:id, score (0-1), space, integrity, preview. Example: {"query": "sign a bundle", "scope": "tool"}',
      inputSchema: searchInput,
      outputSchema: envelopeSchema,
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async (args) => {
      try {
        const page = await ctx.withIndex(args.project_path, (index) => index.search(toSearchOptions(args)));
        return searchAnswer(page, args);
      } catch (err) {
        // The model sent the query: its start tells this failure apart (a refused 100,000-character query was echoed whole).
        return errorResult({
          error: errorPayload(err),
          query: args.query === undefined ? undefined : echo(args.query),
        });
      }
    },
  );
}
