/**
 * Every search option once: its names, the shape of its value, its one-line doc and its CLI
 * flag. The `SearchOptions` type, the names `buildRequest` accepts, the MCP tools' schemas
 * (`mcp/schemas.ts`), and the CLI's flags and help (`cli/search.ts`) derive from this table;
 * `buildRequest` (`search-request.ts`) validates values with coded errors. To add an option: a
 * row here, its use in `buildRequest` and the core, and a test.
 */
import { RESULT_FIELDS, type ResultField } from './result-fields.js';
import {
  type NativeRequest,
  SEARCH_MODES,
  type SearchMode,
  SORT_ORDERS,
  type SortBy,
  TOTAL_COUNTS,
  type TotalCount,
} from './wire.js';

/** Typo tolerance or nearness: `{ enabled, max_distance }`. */
export interface DistanceOption {
  enabled?: boolean;
  max_distance?: number;
  maxDistance?: number;
}

/**
 * Engine limits stated to callers (MCP schemas, docs). The core owns and enforces them
 * (`MAX_PREVIEW_CHARS`, `MAX_PROXIMITY`, `MAX_LIMIT` in crates/rye-search-core/src/search/mod.rs);
 * crates/rye-search-core/tests/wire_keys.rs fails when these differ.
 */
export const MAX_PREVIEW_CHARS = 10_000;
export const MAX_PROXIMITY = 1000;
/** The largest page a search returns (a larger `limit` is the core's `E_LIMIT`). */
export const MAX_LIMIT = 1000;
/** The largest page an MCP answer takes (a budget for agents; the API pages up to the core's limit). */
export const MAX_MCP_LIMIT = 100;
/**
 * Values the filters may hold in all (the core's `MAX_FILTER_VALUES`): checked here too, before
 * each is read, so that a `filters` object of 300,000 keys is refused at once (it took 1.2 s).
 */
export const MAX_FILTER_VALUES = 1024;
/** The fields `fields` may name (the core's `TEXT_FIELDS`): one not among them is refused at once. */
export const TEXT_FIELD_NAMES = ['title', 'name', 'description', 'category', 'content'] as const;

/** The shape of an option's value, as JSON (MCP) states it. */
export type Shape =
  | { type: 'string'; nonEmpty?: boolean }
  | { type: 'integer'; min: number; max?: number; mcpMax?: number }
  | { type: 'number'; min: number; max: number }
  | { type: 'boolean' }
  | { type: 'enum'; values: readonly string[] }
  | { type: 'enums'; values: readonly string[] }
  | { type: 'scopes' }
  | { type: 'record' }
  | { type: 'filters' }
  | { type: 'distance' }
  | { type: 'boolean-or-string' };

/** How the CLI sets an option: a flag, what it takes, and how its text becomes the value. */
export interface CliFlag {
  flag: string;
  /** The argument's name in help (none for a switch). */
  arg?: string;
  /** Other flags for the same option. */
  aliases?: readonly string[];
  repeatable?: boolean;
  /** The help line, when it is not the option's doc. */
  help?: string;
}

export interface OptionSpec {
  /** The value's type, for the compiler (see {@link is}); nothing at run time. */
  value: unknown;
  /** The other accepted name: the snake_case one that MCP and JSON use, or `rye_fetch`'s. */
  alias?: string;
  shape: Shape;
  doc: string;
  /** Absent: the CLI sets it otherwise (the query is the positional words). */
  cli?: CliFlag;
  /**
   * The request key it fills as it is, once its shape checks it (`buildRequest`); absent for
   * options the request is built from otherwise. A key the request type lacks does not compile.
   */
  wire?: keyof NativeRequest;
  /** Its value when not given (with `wire`). */
  default?: unknown;
  /** The hint of the error a wrong value gets, when the shape's own is not enough. */
  hint?: string;
  /** `false`: not an MCP argument (an API throughput option agents need not load). */
  mcp?: false;
}

/** Marks an option's value type in the table. */
const is = <T>() => undefined as T;

/** How `mode: "auto"` chooses, said once. */
export const AUTO_RULE =
  'a plain question of two or more words runs hybrid (keyword plus meaning, fused) unless its words together ' +
  'match ten items or more (then keyword); anything with operators, quotes, wildcards, fields or identifiers runs as keyword';

export const SEARCH_OPTIONS = {
  /** The query; with `like` it may be left out (or `*`), else it narrows the similar items. */
  query: {
    value: is<string>(),
    shape: { type: 'string' },
    doc: 'Words, a question, or syntax: AND OR NOT ( ) "phrase" wild*; "*": all',
  },
  /** Kind and namespace (`tool`, `tool.rye.core.*`), or a list of them (items in any, one ranking). */
  scope: {
    value: is<string | string[]>(),
    shape: { type: 'scopes' },
    doc: 'Kind and namespace: "tool", "tool.rye.core.*" (default all); a list for several',
    cli: {
      flag: 'scope',
      arg: 'S',
      repeatable: true,
      help: 'kind and namespace: tool, tool.rye.core.*, rye.search.knowledge.* (default: every kind); repeat it to search several scopes in one ranking',
    },
  },
  /** `all` (default), `project`, `user`, `system`, `local`, or `system:<bundle>`; `source` is its alias. */
  space: {
    value: is<string>(),
    alias: 'source',
    shape: { type: 'string' },
    doc: 'all (default), project, user, system, local or system:<bundle_id>',
    cli: {
      flag: 'space',
      arg: 'X',
      aliases: ['source'],
      help: 'all (default), project, user, system or system:<bundle>',
    },
  },
  limit: {
    value: is<number>(),
    wire: 'limit',
    default: 10,
    shape: { type: 'integer', min: 0, mcpMax: MAX_MCP_LIMIT },
    doc: 'Results per page (default 10)',
    cli: { flag: 'limit', arg: 'N', help: 'results per page (default 10)' },
  },
  offset: {
    value: is<number>(),
    wire: 'offset',
    default: 0,
    shape: { type: 'integer', min: 0 },
    doc: 'Results to skip (paging)',
    cli: { flag: 'offset', arg: 'N' },
  },
  sortBy: {
    value: is<SortBy>(),
    alias: 'sort_by',
    wire: 'sortBy',
    default: 'score',
    shape: { type: 'enum', values: SORT_ORDERS },
    doc: 'Default score',
    cli: { flag: 'sort-by', arg: 'X', help: 'score (default), name or date' },
  },
  /** Field → query, all must match. */
  fields: {
    value: is<Record<string, string>>(),
    shape: { type: 'record' },
    doc: '{field: query}, all must match: title, name, description, category, content',
    cli: {
      flag: 'field',
      arg: 'K=Q',
      repeatable: true,
      help: 'FIELD=QUERY, all must match (title, name, description, category, content)',
    },
  },
  /** Exact metadata filters: key → value, a list (any of), `!value` (not). */
  filters: {
    value: is<Record<string, unknown>>(),
    shape: { type: 'filters' },
    doc: 'Exact metadata: {"type": "tool", "tags": ["a", "b"], "version": ">=1.2"}; list: any of; "!x": not',
    cli: {
      flag: 'filter',
      arg: 'K=V',
      repeatable: true,
      help: 'exact metadata KEY=VALUE (type=tool, tags=api, version=>=1.2, integrity=!invalid); repeat for more',
    },
  },
  fuzzy: {
    value: is<DistanceOption>(),
    shape: { type: 'distance' },
    doc: 'Typos allowed: {"enabled": true, "max_distance": 1|2}; unset: only when nothing matches as written',
    cli: { flag: 'fuzzy', arg: 'N', help: 'allow N typos per term (1 or 2)' },
  },
  proximity: {
    value: is<DistanceOption>(),
    shape: { type: 'distance' },
    doc: `All terms within N words: {"enabled": true, "max_distance": 5} (≤ ${MAX_PROXIMITY})`,
    cli: { flag: 'proximity', arg: 'N', help: 'all terms within N words of each other' },
  },
  /** Only items dated at or after: an ISO date, a `Date`, or a duration back from now. */
  since: {
    value: is<string | Date>(),
    shape: { type: 'string' },
    doc: 'Dated at or after: ISO date or age (12h, 7d, 2w, 3m, 1y)',
    cli: { flag: 'since', arg: 'T' },
  },
  /** Only items dated at or before: an ISO date, a `Date`, or a duration back from now. */
  until: {
    value: is<string | Date>(),
    shape: { type: 'string' },
    doc: 'Dated at or before, as since',
    cli: { flag: 'until', arg: 'T' },
  },
  /** Preview length in characters (default 200, 0 for none). */
  previewChars: {
    value: is<number>(),
    alias: 'preview_chars',
    wire: 'previewChars',
    default: 200,
    shape: { type: 'integer', min: 0, max: MAX_PREVIEW_CHARS },
    doc: 'Default 200; 0: none',
    cli: { flag: 'preview-chars', arg: 'N', help: 'preview length per result (default 200, 0 for none)' },
  },
  /** Only these result fields (`id` and `type` always). */
  includeFields: {
    value: is<ResultField[]>(),
    alias: 'include_fields',
    shape: { type: 'enums', values: RESULT_FIELDS },
    doc: 'Only these result fields',
    cli: {
      flag: 'include-fields',
      arg: 'L',
      help: 'only these result fields (id and type always), e.g. id,score,description',
    },
  },
  /** How to search: `auto` (default), `keyword`, `semantic` or `hybrid`. */
  mode: {
    value: is<SearchMode>(),
    wire: 'mode',
    default: 'auto',
    shape: { type: 'enum', values: SEARCH_MODES },
    doc: 'Default auto: hybrid (words and meaning) for a plain question, else keyword',
    cli: { flag: 'mode', arg: 'M', help: `auto (default: ${AUTO_RULE}), keyword, semantic or hybrid` },
  },
  /** Only results scoring at least this (0–1, relative to the best result). */
  minScore: {
    value: is<number>(),
    alias: 'min_score',
    wire: 'minScore',
    default: 0,
    hint: 'e.g. 0.3 keeps results scoring at least 30% of the best',
    shape: { type: 'number', min: 0, max: 1 },
    doc: 'Drop results scoring below (0-1, one scale in every mode)',
    cli: { flag: 'min-score', arg: 'X' },
  },
  /** Add `counts` over the whole match set. */
  facets: {
    value: is<boolean>(),
    wire: 'facets',
    default: false,
    shape: { type: 'boolean' },
    doc: 'Add counts of all matches by type, space, category, integrity',
    cli: { flag: 'facets' },
  },
  /** Favour recent items: `true` (a half-life of 30 days) or a half-life like `"7d"`. */
  boostRecent: {
    value: is<boolean | string>(),
    alias: 'boost_recent',
    shape: { type: 'boolean-or-string' },
    doc: 'Favour recent items: true (half-life 30d) or a half-life ("7d")',
    cli: {
      flag: 'boost-recent',
      arg: 'D',
      help: 'favour recent items among similar matches, the boost halving every D (7d, 30d, 2w)',
    },
  },
  /** `kind:id`: the items most like that one, itself left out; with `query`, only those it matches. */
  like: {
    value: is<string>(),
    shape: { type: 'string', nonEmpty: true },
    doc: '"kind:id": the items most like it (query optional, narrows)',
    cli: { flag: 'like', arg: 'ID', help: 'items most like this one (kind:id); QUERY may then be left out' },
  },
  /** How exact `total` must be: a Node API option for code that pages by `has_more`. */
  count: {
    value: is<TotalCount>(),
    wire: 'count',
    default: 'exact',
    mcp: false,
    shape: { type: 'enum', values: TOTAL_COUNTS },
    doc:
      'How exact total must be: exact (default); lower_bound, what the ranking visited (total_relation "gte" ' +
      'when top-k skipped matches, "eq" when exact anyway); none, the same (a lower bound costs nothing more)',
  },
  /** Each result says what each query term gave it. */
  explain: {
    value: is<boolean>(),
    wire: 'explain',
    default: false,
    shape: { type: 'boolean' },
    doc: "Each result's score by query term",
    cli: { flag: 'explain' },
  },
} as const satisfies Record<string, OptionSpec>;

type Table = typeof SEARCH_OPTIONS;
type ValueOf<O> = O extends { value: infer T } ? T : never;
type AliasOf<O> = O extends { alias: infer A extends string } ? A : never;

/** Search options of the Node API: every option by its name, or by its alias. */
export type SearchOptions = { [K in keyof Table]?: ValueOf<Table[K]> } & {
  [K in keyof Table as AliasOf<Table[K]>]?: ValueOf<Table[K]>;
};

export type OptionName = keyof Table;

/** Every name an option is accepted by (names and aliases). */
export const OPTION_NAMES: ReadonlySet<string> = new Set(
  Object.entries(SEARCH_OPTIONS).flatMap(([name, spec]: [string, OptionSpec]) => [name, spec.alias ?? name]),
);

/** An option's value, given by its name or its alias (the name wins). */
export function optionValue<K extends OptionName>(opts: SearchOptions, name: K): SearchOptions[K] {
  const spec: OptionSpec = SEARCH_OPTIONS[name];
  const byName = opts[name];
  if (byName !== undefined || spec.alias === undefined) return byName;
  return (opts as Record<string, unknown>)[spec.alias] as SearchOptions[K];
}

/** The names MCP takes for an option: its snake_case ones (`sort_by`; `space` and `source`). */
export function snakeNames(name: OptionName): string[] {
  const spec: OptionSpec = SEARCH_OPTIONS[name];
  return [name, spec.alias].filter((n): n is string => n !== undefined && n === n.toLowerCase());
}
