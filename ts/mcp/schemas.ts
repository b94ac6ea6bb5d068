/** Zod schemas shared by the tools: arguments in, structured results out. */
import { z } from 'zod';

import { MAX_SCOPES } from '../scope.js';
import { RESULT_FIELDS } from '../search-request.js';
import { DEFAULT_ANSWER_TOKENS, MAX_ANSWER_TOKENS, MIN_ANSWER_TOKENS } from './answer-budget.js';

const MAX_MCP_LIMIT = 100;

const distanceSchema = z
  .object({
    enabled: z.boolean().optional().describe('turn the feature on'),
    max_distance: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe('edit distance (fuzzy, clamped to 2) or words apart (proximity)'),
  })
  .strict();

export const queryArgs = {
  query: z
    .string()
    .describe(
      'Search query: terms (implicit AND), AND / OR / NOT, (groups), "phrases", wild*cards; "*" lists everything',
    ),
  scope: z
    .union([z.string().min(1), z.array(z.string().min(1)).min(1).max(MAX_SCOPES)])
    .optional()
    .describe(
      'Kind and optional namespace: "tool", "tool.rye.core.*", "rye.search.knowledge.*"; "*" or omitted: every kind. ' +
        `A list (at most ${MAX_SCOPES}) searches items in any of them, one ranking: ["directive", "knowledge.rye.*"]`,
    ),
  project_path: z
    .string()
    .min(1)
    .optional()
    .describe("Absolute path to the project root (the directory holding .ai/); defaults to the server's --project"),
  limit: z
    .number()
    .int()
    .min(0)
    .max(MAX_MCP_LIMIT)
    .optional()
    .describe(`Maximum results (default 10, at most ${MAX_MCP_LIMIT})`),
  offset: z.number().int().min(0).optional().describe('Results to skip (pagination)'),
  sort_by: z.enum(['score', 'name', 'date']).optional().describe('Sort order (default score)'),
  fields: z
    .record(z.string())
    .optional()
    .describe('Field-specific queries, all must match: title, name, description, category, content'),
  filters: z
    .record(z.union([z.string(), z.number(), z.boolean(), z.array(z.union([z.string(), z.number(), z.boolean()]))]))
    .optional()
    .describe(
      'Exact metadata filters: category, tags, version (">=1.2"), signed, integrity, source, date_from, date_to, any key; list = any of, "!x" = not',
    ),
  fuzzy: distanceSchema.optional().describe('Typo tolerance: {"enabled": true, "max_distance": 2}'),
  proximity: distanceSchema.optional().describe('Terms near each other: {"enabled": true, "max_distance": 5}'),
  since: z
    .string()
    .optional()
    .describe('Only items dated at or after: ISO date or a duration back from now (12h, 7d, 2w, 3m, 1y)'),
  until: z.string().optional().describe('Only items dated at or before: ISO date or a duration back from now'),
  preview_chars: z
    .number()
    .int()
    .min(0)
    .max(2000)
    .optional()
    .describe('Preview length per result in characters (default 200; 0 = no preview, the smallest answer)'),
  mode: z
    .enum(['auto', 'keyword', 'semantic', 'hybrid'])
    .optional()
    .describe(
      'How to search. auto (default): a plain question ("keep shell sessions alive after ssh disconnects") runs hybrid, ' +
        'keyword plus meaning, fused, unless its words together match ten items or more (then keyword); ' +
        'queries with operators, quotes, wildcards, fields or identifiers run as keyword. ' +
        'keyword: words only. semantic: meaning only. hybrid: both.',
    ),
  min_score: z
    .number()
    .min(0)
    .max(1)
    .optional()
    .describe(
      'Only results scoring at least this (0-1, scores are relative to the best result); total counts only those',
    ),
  boost_recent: z
    .union([z.boolean(), z.string()])
    .optional()
    .describe(
      'Favour recent items among similar matches: true (half-life 30 days) or a half-life like "7d"; a much better old match still ranks first',
    ),
  explain: z
    .boolean()
    .optional()
    .describe("Each result lists each query term's part in its score: field, term, how it matched, weight, BM25"),
  facets: z
    .boolean()
    .optional()
    .describe(
      'Add counts: matches by type, space, category and integrity over the whole match set, not only this page',
    ),
  max_answer_tokens: z
    .number()
    .int()
    .min(MIN_ANSWER_TOKENS)
    .max(MAX_ANSWER_TOKENS)
    .optional()
    .describe(
      `Size budget of this answer in estimated tokens (default ${DEFAULT_ANSWER_TOKENS}): a page that would not fit ends early, ` +
        'with a warning and next_offset at the first result left out',
    ),
  include_fields: z
    .array(z.enum(RESULT_FIELDS))
    .optional()
    .describe('Only these result fields (id and type always), e.g. ["id", "score", "description"]: smaller answers'),
};

const resultSchema = z
  .object({
    id: z.string(),
    name: z.string().optional(),
    title: z.string().optional(),
    description: z.string().optional(),
    category: z.string().optional(),
    score: z.number().optional(),
    type: z.enum(['directive', 'tool', 'knowledge']),
    source: z.enum(['project', 'user', 'system']).optional(),
    preview: z.string().optional(),
    path: z.string().optional(),
    signed: z.boolean().optional(),
    integrity: z.enum(['verified', 'unsigned', 'modified', 'untrusted', 'invalid']).optional(),
    date: z.string().optional().describe("ISO date of the item: its metadata date, else its file's modification time"),
    tokens: z.number().int().optional().describe('about how many tokens loading the whole item costs (rye_fetch)'),
    bundle: z.string().optional(),
    metadata: z.record(z.unknown()).optional(),
    shadows: z.array(z.object({ space: z.string() })).optional(),
    shadowed_by: z.string().optional(),
    match: z
      .enum(['keyword', 'semantic', 'both'])
      .optional()
      .describe('hybrid and semantic searches: found by its words, by meaning, or both'),
    highlights: z
      .array(z.tuple([z.number().int(), z.number().int()]))
      .optional()
      .describe('the matched words in preview, as [start, end) string indices'),
    explain: z
      .array(
        z.object({
          field: z.string(),
          term: z.string(),
          how: z.enum(['exact', 'word form', 'phrase', 'typo', 'wildcard']),
          weight: z.number(),
          bm25: z.number(),
        }),
      )
      .optional()
      .describe("with explain: each query term's part in the score, largest first"),
  })
  .passthrough();

export const envelopeShape = {
  results: z.array(resultSchema),
  total: z.number().int(),
  query: z.string(),
  scope: z.string(),
  space: z.string(),
  limit: z.number().int(),
  offset: z.number().int(),
  search_type: z
    .enum(['keyword', 'hybrid', 'semantic'])
    .describe('what ran: keyword, hybrid (keyword and meaning, fused) or semantic'),
  has_more: z.boolean().describe('more results follow this page'),
  next_offset: z.number().int().optional().describe('the offset of the next page, when has_more'),
  usage_hint: z.string().optional().describe('how to load an item, or get the next page'),
  relaxed: z
    .boolean()
    .optional()
    .describe(
      'true when a plain question found nothing with every word and was answered without some (named in warnings)',
    ),
  counts: z
    .object({
      type: z.record(z.number().int()),
      space: z.record(z.number().int()),
      category: z.record(z.number().int()),
      integrity: z.record(z.number().int()),
    })
    .optional()
    .describe('with facets: value -> number of matches, over the whole match set'),
  warnings: z.array(z.string()).optional(),
};
