/** The `rye_fetch` tool: ID mode (resolve content) or query mode (discover), as in the seeds. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

import { fetchFailure, InvalidArgumentError } from '../errors.js';
import { MAX_ITEM_IDS } from '../rye-index.js';
import { KINDS } from '../scope.js';
import type { McpContext } from './context.js';
import { fetchManyText, fetchText } from './answer-text.js';
import { errorResult, okResult } from './errors.js';
import { boundedList, checkedArgs, searchInput } from './schemas.js';
import { searchAnswer, toSearchOptions } from './search-answer.js';

/**
 * What `rye_fetch` states: ID mode's arguments, and query mode's by reference to `rye_search`
 * (every one of its arguments is taken, and checked by its schema: `searchInput`). Stating them
 * twice would double what every client loads into every context (issue #63).
 */
const fetchArgs = {
  item_id: z.string().min(1).optional().describe('"kind:id" (or an id and item_type)'),
  item_ids: boundedList(z.string().min(1), MAX_ITEM_IDS, 1)
    .optional()
    .describe('Several ids: an answer or error each, under items'),
  item_type: z.enum(KINDS).optional().describe('Kind of a bare item_id'),
  source: z.string().optional().describe('Only this space: project, user, system, system:<bundle_id>'),
  destination: z.enum(['project', 'user']).optional().describe('Copy the item into this space'),
  overwrite: z.boolean().optional().describe('Replace a different file at destination'),
  version: z.string().optional().describe('Registry sources only'),
  query: searchInput.shape.query.describe('Query mode: rye_search, with any of its arguments'),
  project_path: searchInput.shape.project_path,
};

/** ID mode's arguments; query mode takes rye_search's (with `source` as its alias of `space`). */
const idInput = z.object({ ...fetchArgs, space: z.string().optional() }).strict();
const ID_ONLY = ['item_type', 'destination', 'overwrite', 'version'] as const;

/** ID mode's answer: the item (or `items`); query mode answers with rye_search's envelope. */
const fetchOutput = z
  .object({
    content: z.string().optional(),
    path: z.string().optional(),
    source: z.string().optional(),
    integrity: z.string().optional(),
    items: z.array(z.record(z.unknown())).optional(),
  })
  .passthrough();

export function registerFetchTool(server: McpServer, ctx: McpContext): void {
  server.registerTool(
    'rye_fetch',
    {
      title: 'Fetch RYE items',
      description:
        'Load an item rye_search found, its signature checked (from the first space that has it), or copy it ' +
        'to a space. Example: {"item_id": "tool:rye/core/sign"}',
      // Stated loosely so query mode can take rye_search's arguments; checked strictly below.
      inputSchema: z.object(fetchArgs).passthrough(),
      outputSchema: fetchOutput,
      annotations: { destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async (given) => {
      const args: Record<string, unknown> = given;
      const many = args.item_ids !== undefined;
      const idMode = args.item_id !== undefined || many;
      try {
        if (args.item_id !== undefined && many) {
          throw new InvalidArgumentError('Provide item_id or item_ids, not both', {
            hint: 'item_ids loads several items; item_id one',
          });
        }
        if (idMode && args.query !== undefined) {
          throw new InvalidArgumentError('Provide item_id or query, not both', {
            hint: 'item_id loads one item; query + scope searches',
          });
        }
        if (!idMode && args.query === undefined) {
          throw new InvalidArgumentError('Provide item_id or query+scope', {
            hint: 'e.g. {"item_id": "tool:rye/core/bash/bash"} or {"query": "bash", "scope": "tool"}',
          });
        }
        const given = Object.keys(args).filter((k) => args[k] !== undefined);
        const misplaced = idMode
          ? given.filter((k) => !(k in idInput.shape) && k in searchInput.shape)
          : ID_ONLY.filter((k) => given.includes(k));
        if (misplaced.length) {
          throw new InvalidArgumentError(
            `${misplaced.join(', ')} ${misplaced.length === 1 ? 'is' : 'are'} not used in ${idMode ? 'ID' : 'query'} mode`,
            {
              hint: idMode
                ? 'remove them, or search with query + scope'
                : 'remove them, or fetch one item with item_id',
            },
          );
        }
        if (!idMode) {
          const search = checkedArgs('rye_fetch', searchInput, args);
          return await ctx.withIndex(search.project_path, async (index) => {
            const res = await index.search(toSearchOptions({ scope: '*', ...search }));
            return searchAnswer(res, search);
          });
        }
        const id = checkedArgs('rye_fetch', idInput, args);
        const one = {
          item_type: id.item_type,
          source: id.source,
          space: id.space,
          destination: id.destination,
          overwrite: id.overwrite,
        };
        return await ctx.withIndex(id.project_path, async (index) => {
          if (id.item_ids) {
            const res = await index.fetchMany({ item_ids: id.item_ids, ...one });
            return okResult(res as unknown as Record<string, unknown>, fetchManyText(res.items));
          }
          const res = await index.fetch({ item_id: id.item_id!, ...one });
          return okResult(res as unknown as Record<string, unknown>, fetchText(res));
        });
      } catch (err) {
        const itemId = typeof args.item_id === 'string' ? args.item_id : undefined;
        const itemType = typeof args.item_type === 'string' ? args.item_type : undefined;
        return errorResult({ ...fetchFailure(err, itemId, itemType) });
      }
    },
  );
}
