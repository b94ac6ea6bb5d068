/** The `rye_search` tool: parameters and response as in the seeds. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

import type { McpContext } from './context.js';
import { errorPayload, errorResult } from './errors.js';
import { envelopeShape, optionArgs, queryArgs } from './schemas.js';
import { searchAnswer, toSearchOptions } from './search-answer.js';

const searchArgs = {
  ...queryArgs,
  ...optionArgs(['like', 'space']),
  query: queryArgs.query.optional(),
};

/** Unknown arguments are errors, not silently dropped: a misspelt option must not look applied. */
const searchInput = z.object(searchArgs).strict();

export function registerSearchTool(server: McpServer, ctx: McpContext): void {
  server.registerTool(
    'rye_search',
    {
      title: 'Search RYE items',
      description:
        'Find which directive, tool or knowledge item fits a need; use rye_fetch afterwards to load one by its id. ' +
        'Ask in plain words (a sentence runs hybrid: keyword plus meaning) or in query syntax: ' +
        'words must all match (AND, OR, NOT, parentheses), "exact phrase", wild*card; ' +
        'scope narrows by kind and namespace ("tool", "tool.rye.core.*"); ' +
        'fields/filters match one field or metadata exactly. ' +
        'Results carry score (0-1), space, signature integrity, shadowing and a token estimate. ' +
        'Example: {"query": "sign a bundle", "scope": "tool", "limit": 5, "preview_chars": 0}.',
      inputSchema: searchInput,
      outputSchema: envelopeShape,
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async (args) => {
      try {
        const page = await ctx.withIndex(args.project_path, (index) => index.search(toSearchOptions(args)));
        return searchAnswer(page, args.max_answer_tokens);
      } catch (err) {
        return errorResult({ error: errorPayload(err), query: args.query });
      }
    },
  );
}
