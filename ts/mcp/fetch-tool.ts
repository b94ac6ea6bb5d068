/** The `rye_fetch` tool: ID mode (resolve content) or query mode (discover), as in the seeds. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

import { fetchFailure, InvalidArgumentError } from '../errors.js';
import type { McpContext } from './context.js';
import { errorResult, okResult } from './errors.js';
import { MAX_ITEM_IDS } from '../rye-index.js';
import { envelopeShape, queryArgs } from './schemas.js';
import { searchAnswer, toSearchOptions } from './search-answer.js';

const { query, scope, ...shared } = queryArgs;

const fetchArgs = {
  item_id: z
    .string()
    .min(1)
    .optional()
    .describe('ID mode: kind:id or an id relative to .ai/<kind>/ without extension, e.g. "rye/core/create_tool"'),
  item_ids: z
    .array(z.string().min(1))
    .min(1)
    .max(MAX_ITEM_IDS)
    .optional()
    .describe(
      `ID mode, several items in one call (at most ${MAX_ITEM_IDS}): one result or error per id, in order, under "items"`,
    ),
  item_type: z
    .enum(['directive', 'tool', 'knowledge'])
    .optional()
    .describe('ID mode: the kind, when a bare id exists under several'),
  query: query.optional(),
  scope: scope.optional(),
  source: z
    .string()
    .optional()
    .describe(
      'ID mode: "project", "user", "system" or "system:<bundle_id>" (default: cascade). Query mode: "all" (default), "local", "project", "user", "system"',
    ),
  space: z.string().optional().describe('Alias of source (the name rye_search uses)'),
  destination: z
    .enum(['project', 'user'])
    .optional()
    .describe('ID mode: copy the item into this space, keeping its nested path'),
  overwrite: z.boolean().optional().describe('ID mode: replace a different file at the destination'),
  version: z.string().optional().describe('Registry sources only; ignored for local spaces'),
  ...shared,
};

/** Unknown arguments are errors, not silently dropped: a misspelt option must not look applied. */
const fetchInput = z.object(fetchArgs).strict();

const ID_ONLY = ['item_type', 'destination', 'overwrite', 'version'] as const;
/** Every search argument but the project: the one list rye_search's schema already is. */
const QUERY_ONLY = Object.keys(shared).filter((k) => k !== 'project_path');

/** Query mode answers with rye_search's envelope, every field optional (ID mode has none of them). */
const envelopeFields = Object.fromEntries(
  Object.entries(envelopeShape).map(([key, schema]) => [key, schema.optional()]),
) as { [K in keyof typeof envelopeShape]: z.ZodOptional<(typeof envelopeShape)[K]> };

const fetchOutput = {
  status: z.literal('success').optional(),
  content: z.string().optional(),
  metadata: z
    .object({ name: z.string(), path: z.string(), extension: z.string(), version: z.string().optional() })
    .optional(),
  path: z.string().optional(),
  source: z.string().optional(),
  item_type: z.string().optional(),
  item_id: z.string().optional(),
  bundle: z.string().optional(),
  signed: z.boolean().optional(),
  integrity: z.string().optional(),
  copied_to: z.enum(['project', 'user']).optional(),
  destination_path: z.string().optional(),
  warning: z.string().optional(),
  ...envelopeFields,
  items: z
    .array(z.record(z.unknown()))
    .optional()
    .describe('item_ids: per id, the fetch response or its failure document, in order'),
};

export function registerFetchTool(server: McpServer, ctx: McpContext): void {
  server.registerTool(
    'rye_fetch',
    {
      title: 'Fetch RYE items',
      description:
        'Load what rye_search found. ID mode (item_id, or item_ids for up to 50): the verified content of an item, cascading ' +
        'project → user → system, optionally copied to the project or user space. Query mode (query + scope): discover ' +
        'items like rye_search. Example: {"item_id": "tool:rye/core/sign"}.',
      inputSchema: fetchInput,
      outputSchema: fetchOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async (args) => {
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
        const given: Record<string, unknown> = args;
        const misplaced = (idMode ? QUERY_ONLY : ID_ONLY).filter((k) => given[k] !== undefined);
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
        const one = {
          item_type: args.item_type,
          source: args.source,
          space: args.space,
          destination: args.destination,
          overwrite: args.overwrite,
        };
        return await ctx.withIndex(args.project_path, async (index) => {
          if (many) {
            const res = await index.fetchMany({ item_ids: args.item_ids, ...one });
            return okResult(res as unknown as Record<string, unknown>);
          }
          if (idMode) {
            const res = await index.fetch({ item_id: args.item_id!, ...one });
            return okResult(res as unknown as Record<string, unknown>);
          }
          const res = await index.search(toSearchOptions({ ...args, query: args.query!, scope: args.scope ?? '*' }));
          return searchAnswer(res, args.max_answer_tokens);
        });
      } catch (err) {
        return errorResult({
          ...fetchFailure(err, idMode ? args.item_id : undefined, idMode ? args.item_type : undefined),
        });
      }
    },
  );
}
