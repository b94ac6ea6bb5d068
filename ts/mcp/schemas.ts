/** Zod schemas shared by the tools: arguments in, structured results out. */
import { z } from 'zod';

import { INTEGRITIES, SOURCES } from '../items.js';
import { KINDS, MAX_SCOPES } from '../scope.js';
import { type OptionName, type OptionSpec, SEARCH_OPTIONS, type Shape, snakeNames } from '../search-options.js';
import { MATCH_KINDS, SEARCH_TYPES, VECTOR_TIERS } from '../wire.js';
import { DEFAULT_ANSWER_TOKENS, MAX_ANSWER_TOKENS, MIN_ANSWER_TOKENS } from './answer-budget.js';

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

/** A new schema each time: one used twice becomes a `$ref` in the JSON Schema, which some clients do not follow. */
const filterValue = () => z.union([z.string(), z.number(), z.boolean()]);

/** An option's value as MCP takes it (JSON), from the shape the options table gives. */
function valueSchema(shape: Shape): z.ZodTypeAny {
  switch (shape.type) {
    case 'string':
      return shape.nonEmpty ? z.string().min(1) : z.string();
    case 'integer': {
      const whole = z.number().int().min(shape.min);
      const max = shape.mcpMax ?? shape.max;
      return max === undefined ? whole : whole.max(max);
    }
    case 'number':
      return z.number().min(shape.min).max(shape.max);
    case 'boolean':
      return z.boolean();
    case 'enum':
      return z.enum(shape.values as [string, ...string[]]);
    case 'enums':
      return z.array(z.enum(shape.values as [string, ...string[]]));
    case 'scopes':
      return z.union([z.string().min(1), z.array(z.string().min(1)).min(1).max(MAX_SCOPES)]);
    case 'record':
      return z.record(z.string());
    case 'filters':
      return z.record(z.union([filterValue(), z.array(filterValue())]));
    case 'distance':
      return distanceSchema;
    case 'boolean-or-string':
      return z.union([z.boolean(), z.string()]);
  }
}

/** The MCP arguments of search options, by their snake_case names, from the options table. */
export function optionArgs(names: readonly OptionName[]): Record<string, z.ZodTypeAny> {
  const args: Record<string, z.ZodTypeAny> = {};
  for (const name of names) {
    const spec: OptionSpec = SEARCH_OPTIONS[name];
    const [first, ...aliases] = snakeNames(name);
    args[first!] = valueSchema(spec.shape).optional().describe(spec.doc);
    for (const alias of aliases) args[alias] = valueSchema(spec.shape).optional().describe(`Alias of ${first}`);
  }
  return args;
}

/** Search options both tools take (rye_search adds like and space; rye_fetch has its own source). */
const SHARED_OPTIONS = (Object.keys(SEARCH_OPTIONS) as OptionName[]).filter(
  (name) => name !== 'like' && name !== 'space',
);

/** The arguments of a search, as both tools take them; the options' own are typed by `buildRequest`. */
export const queryArgs: Record<string, z.ZodTypeAny> & {
  query: z.ZodString;
  project_path: z.ZodOptional<z.ZodString>;
  max_answer_tokens: z.ZodOptional<z.ZodNumber>;
} = {
  ...optionArgs(SHARED_OPTIONS),
  query: z.string().describe(SEARCH_OPTIONS.query.doc),
  project_path: z
    .string()
    .min(1)
    .optional()
    .describe("Absolute path to the project root (the directory holding .ai/); defaults to the server's --project"),
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
};

const resultSchema = z
  .object({
    id: z.string(),
    name: z.string().optional(),
    title: z.string().optional(),
    description: z.string().optional(),
    category: z.string().optional(),
    score: z.number().optional(),
    type: z.enum(KINDS),
    source: z.enum(SOURCES).optional(),
    preview: z.string().optional(),
    path: z.string().optional(),
    signed: z.boolean().optional(),
    integrity: z.enum(INTEGRITIES).optional(),
    date: z.string().optional().describe("ISO date of the item: its metadata date, else its file's modification time"),
    tokens: z.number().int().optional().describe('about how many tokens loading the whole item costs (rye_fetch)'),
    bundle: z.string().optional(),
    metadata: z.record(z.unknown()).optional(),
    shadows: z.array(z.object({ space: z.string() })).optional(),
    shadowed_by: z.string().optional(),
    match: z
      .enum(MATCH_KINDS)
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
  search_type: z.enum(SEARCH_TYPES).describe('what ran: keyword, hybrid (keyword and meaning, fused) or semantic'),
  vectors: z
    .enum(VECTOR_TIERS)
    .optional()
    .describe(
      'which vectors ranked by meaning: static (from the first answer) or encoder (once every item is encoded)',
    ),
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
