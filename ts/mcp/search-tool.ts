/** The `rye_search` tool: parameters and response as in the seeds. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

import type { SearchOptions } from '../search-request.js';
import type { SearchResponse } from '../search-results.js';
import { fitAnswer } from './answer-budget.js';
import type { McpContext } from './context.js';
import { errorPayload, errorResult, okResult } from './errors.js';
import { envelopeShape, queryArgs } from './schemas.js';

const searchArgs = {
  ...queryArgs,
  query: queryArgs.query.optional(),
  like: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Related items: "kind:id" of an item; returns the items most like it (its words and meaning), itself left out. ' +
        'With query, only items the query matches; query may be left out',
    ),
  space: z
    .string()
    .optional()
    .describe('Spaces to search: "all" (default), "project", "user", "system" or "system:<bundle_id>"'),
  source: z.string().optional().describe('Alias of space (the name rye_fetch uses)'),
};

/** Unknown arguments are errors, not silently dropped: a misspelt option must not look applied. */
const searchInput = z.object(searchArgs).strict();

export type SearchArgs = z.infer<typeof searchInput>;

export function toSearchOptions(args: SearchArgs): SearchOptions {
  return {
    query: args.query,
    scope: args.scope,
    space: args.space,
    source: args.source,
    limit: args.limit,
    offset: args.offset,
    sortBy: args.sort_by,
    fields: args.fields,
    filters: args.filters,
    fuzzy: args.fuzzy,
    proximity: args.proximity,
    since: args.since,
    until: args.until,
    preview_chars: args.preview_chars,
    include_fields: args.include_fields,
    mode: args.mode,
    min_score: args.min_score,
    facets: args.facets,
    boost_recent: args.boost_recent,
    like: args.like,
    explain: args.explain,
  };
}

/** A search page as an MCP answer: within its size budget, with the agent's next step. */
export function searchAnswer(page: SearchResponse, maxTokens?: number): CallToolResult {
  const answer = fitAnswer(page, maxTokens, (res) => ({ ...res, usage_hint: usageHint(res) }));
  return okResult(answer as unknown as Record<string, unknown>);
}

/** One line telling an agent its next step: load an item, or ask for the next page. */
export function usageHint(res: SearchResponse): string {
  const first = res.results[0];
  const load = first
    ? `Load an item's verified content with rye_fetch {"item_id": "${first.type}:${first.id}"}.`
    : res.total > res.offset
      ? `${res.total} results match; ask with a "limit" above 0 to see them.`
      : res.total > 0
        ? `${res.total} results match, all before "offset" ${res.offset}.`
        : 'No results: try other words, fuzzy, or a wider scope ("*").';
  return res.next_offset !== undefined ? `${load} More results: repeat with "offset": ${res.next_offset}.` : load;
}

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
