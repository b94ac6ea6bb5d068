/** Zod schemas shared by the tools: arguments in, structured results out. */
import { z } from 'zod';

import { InvalidArgumentError } from '../errors.js';
import { KINDS, MAX_SCOPES } from '../scope.js';
import { type OptionName, type OptionSpec, SEARCH_OPTIONS, type Shape, snakeNames } from '../search-options.js';
import { SEARCH_TYPES } from '../wire.js';
import { DEFAULT_ANSWER_TOKENS, MAX_ANSWER_TOKENS, MIN_ANSWER_TOKENS } from './answer-budget.js';

/**
 * A list of at most `max` entries, of which no more than `max + 1` are ever checked. Zod checks
 * every entry of a list before its length counts: 900,000 unknown `include_fields` in one 4 MiB
 * request made 900,000 issues and a 229 MB message, holding the server for 9 s. The cut keeps
 * the refusal (too many) and the schema the client reads (each entry's type).
 */
export function boundedList<T extends z.ZodTypeAny>(entry: T, max: number, min = 0) {
  // No `minItems: 0` in the schema every client loads.
  const list = (min > 0 ? z.array(entry).min(min) : z.array(entry)).max(max);
  return z.preprocess(
    (v) => (Array.isArray(v) && v.length > max ? v.slice(0, max + 1) : v),
    list,
  ) as unknown as typeof list;
}

/** Entries of an `enums` list: each named once is all it can mean; repeats are allowed, within reason. */
const MAX_ENUM_ENTRIES = 64;

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
      return boundedList(z.enum(shape.values as [string, ...string[]]), MAX_ENUM_ENTRIES);
    case 'scopes':
      return z.union([z.string().min(1), boundedList(z.string().min(1), MAX_SCOPES, 1)]);
    case 'record':
      return z.record(z.string());
    case 'filters':
    case 'distance':
      // `buildRequest` checks what they hold, with coded errors; the doc shows their form.
      return z.record(z.unknown());
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

/** The arguments of a search (rye_search's, and rye_fetch's query mode); values are typed by `buildRequest`. */
const searchArgs = {
  ...optionArgs(
    (Object.keys(SEARCH_OPTIONS) as OptionName[]).filter((n) => (SEARCH_OPTIONS[n] as OptionSpec).mcp !== false),
  ),
  // Optional: `like` may stand alone; without either, `buildRequest` says what is missing.
  query: z.string().optional().describe(SEARCH_OPTIONS.query.doc),
  project_path: z.string().min(1).optional().describe("Project root (holds .ai/); default the server's"),
  max_answer_tokens: z
    .number()
    .int()
    .min(MIN_ANSWER_TOKENS)
    .max(MAX_ANSWER_TOKENS)
    .optional()
    .describe(`Answer size cap in tokens, all sent (default ${DEFAULT_ANSWER_TOKENS}): a page ends early`),
};

/** Unknown arguments are errors, not silently dropped: a misspelt option must not look applied. */
export const searchInput = z.object({ ...searchArgs }).strict();

/**
 * A search result as a program reads it: the fields every answer has, typed; the others (README,
 * "Answers") pass through. Descriptions live in the README, not here: every client loads this
 * schema into every context (issue #63: the whole tool surface stays under 6,000 characters).
 */
export const resultSchema = z
  .object({ id: z.string(), type: z.enum(KINDS), score: z.number().optional() })
  .passthrough();

/** `rye_search`'s answer, and `rye_fetch`'s in query mode. */
export const envelopeSchema = z
  .object({
    results: z.array(resultSchema),
    total: z.number().int(),
    has_more: z.boolean(),
    next_offset: z.number().int().optional(),
    search_type: z.enum(SEARCH_TYPES),
    warnings: z.array(z.string()).optional(),
  })
  .passthrough();

/** Issues named in a refusal of a tool's arguments: the first few say what to fix. */
const MAX_ISSUES_SHOWN = 3;
/** A refused value quoted in an issue is shown by its start, as `echo` shows any refused value. */
const QUOTED_CHARS = 60;
/** An issue's line, with every value it quotes cut: room for the longest list of allowed values. */
const ISSUE_CHARS = 500;

/**
 * The coded error of arguments a tool's input schema refuses. `detail` is one issue a line, as the
 * SDK writes them: bounded here, since each quotes the value it refused and a list gives one
 * issue per bad entry (a 100,000-character `mode` was echoed whole; 1,000 unknown
 * `include_fields`, 305,000 characters).
 */
export function invalidArguments(tool: string, detail: string): InvalidArgumentError {
  const issues = detail.split('\n').filter((line) => line.trim() !== '');
  const shown = issues.slice(0, MAX_ISSUES_SHOWN).map((line) =>
    cut(
      line.trim().replace(/'([^']*)'/g, (_, v: string) => `'${cut(v, QUOTED_CHARS)}'`),
      ISSUE_CHARS,
    ),
  );
  if (issues.length > MAX_ISSUES_SHOWN) shown.push(`and ${issues.length - MAX_ISSUES_SHOWN} more`);
  return new InvalidArgumentError(`invalid arguments for ${tool}: ${shown.join('; ')}`, {
    hint: `check the arguments against ${tool}'s input schema (tools/list; rye_fetch's query mode takes rye_search's): names, types and bounds`,
  });
}

function cut(text: string, chars: number): string {
  return text.length > chars ? `${text.slice(0, chars)}…` : text;
}

/** `args` as `schema` reads them, or the coded error naming what it refused. */
export function checkedArgs<S extends z.ZodTypeAny>(tool: string, schema: S, args: unknown): z.infer<S> {
  const parsed = schema.safeParse(args);
  if (parsed.success) return parsed.data;
  const detail = parsed.error.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ` : '') + i.message);
  throw invalidArguments(tool, detail.join('\n'));
}
