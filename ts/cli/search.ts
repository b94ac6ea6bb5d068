import { parseArgs } from 'node:util';

import { InvalidArgumentError } from '../errors.js';
import { openIndex } from '../rye-index.js';
import type { SearchOptions, SortBy } from '../search-request.js';
import { COMMON_HELP, COMMON_OPTIONS, integerArg, numberArg, openOptions, pairs } from './args.js';
import { formatSearch } from './format.js';

export const SEARCH_HELP = `Usage: rye-search search QUERY [options]

Searches directives, tools and knowledge with the rye_search query language:
terms (implicit AND), AND / OR / NOT, (groups), "phrases", wild*cards, * for everything.

  --scope S            kind and namespace: tool, tool.rye.core.*, rye.search.knowledge.* (default: every kind);
                       repeat it to search several scopes in one ranking
  --space X            all (default), project, user, system or system:<bundle> (alias --source)
  --limit N            results per page (default 10)
  --offset N           results to skip
  --sort-by X          score (default), name or date
  --field K=Q          field query, all must match (repeatable): title, name, description, category, content
  --filter K=V         exact metadata filter (repeatable; V1,V2 = any of; !V = not): category, tags, version (>=1.2), signed, integrity, source, date_from, date_to, …
  --fuzzy N            allow N typos per term (1 or 2)
  --proximity N        all terms within N words of each other
  --since T            only items dated at or after T: an ISO date or 12h, 7d, 2w, 3m, 1y back from now
  --until T            only items dated at or before T
  --preview-chars N    preview length per result (default 200, 0 for none)
  --min-score X        only results scoring at least X (0-1, relative to the best result)
  --facets             count all matches by type, space, category and integrity
  --like ID            items most like this one (kind:id); QUERY may then be left out
  --explain            show what each query term gave each result
  --boost-recent D     favour recent items among similar matches, the boost halving every D (7d, 30d, 2w)
  --include-fields L   only these result fields in --json (id and type always), e.g. id,score,description
  --mode M             auto (default: plain questions hybrid unless their words match 10+ items, anything
                       else keyword), keyword, semantic or hybrid
${COMMON_HELP}

Exit status: 0 results found, 1 no results, 2 error.`;

function filterValue(v: string): string | boolean {
  return v === 'true' ? true : v === 'false' ? false : v;
}

export async function searchCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      ...COMMON_OPTIONS,
      scope: { type: 'string', multiple: true },
      space: { type: 'string' },
      source: { type: 'string' },
      limit: { type: 'string' },
      offset: { type: 'string' },
      'sort-by': { type: 'string' },
      field: { type: 'string', multiple: true },
      filter: { type: 'string', multiple: true },
      fuzzy: { type: 'string' },
      proximity: { type: 'string' },
      'preview-chars': { type: 'string' },
      'min-score': { type: 'string' },
      facets: { type: 'boolean' },
      like: { type: 'string' },
      explain: { type: 'boolean' },
      'boost-recent': { type: 'string' },
      since: { type: 'string' },
      until: { type: 'string' },
      'include-fields': { type: 'string' },
      mode: { type: 'string' },
    },
  });
  if (values.help) {
    process.stdout.write(`${SEARCH_HELP}\n`);
    return 0;
  }
  if (positionals.length === 0 && values.like === undefined)
    throw new InvalidArgumentError('search needs a QUERY', {
      hint: 'e.g. rye-search search "file system" --scope tool (use "*" for everything)',
    });
  const fields = pairs(values.field, 'field') as Record<string, string | string[]>;
  for (const [k, v] of Object.entries(fields)) if (Array.isArray(v)) fields[k] = v.join(' ');
  const filters = Object.fromEntries(
    Object.entries(pairs(values.filter, 'filter', true)).map(([k, v]) => [
      k,
      Array.isArray(v) ? v.map(filterValue) : filterValue(v),
    ]),
  );
  const fuzzy = integerArg(values.fuzzy, 'fuzzy');
  const proximity = integerArg(values.proximity, 'proximity');
  const opts: SearchOptions = {
    query: positionals.length ? positionals.join(' ') : undefined,
    scope: values.scope && values.scope.length === 1 ? values.scope[0] : values.scope,
    space: values.space,
    source: values.source,
    limit: integerArg(values.limit, 'limit'),
    offset: integerArg(values.offset, 'offset'),
    sortBy: values['sort-by'] as SortBy | undefined,
    fields: fields as Record<string, string>,
    filters,
    fuzzy: fuzzy === undefined ? undefined : { enabled: fuzzy > 0, max_distance: fuzzy },
    proximity: proximity === undefined ? undefined : { enabled: true, max_distance: proximity },
    previewChars: integerArg(values['preview-chars'], 'preview-chars'),
    minScore: numberArg(values['min-score'], 'min-score'),
    facets: values.facets,
    like: values.like,
    explain: values.explain,
    boostRecent: values['boost-recent'],
    since: values.since,
    until: values.until,
    includeFields: values['include-fields']?.split(',').map((f) => f.trim()) as SearchOptions['includeFields'],
    mode: values.mode as SearchOptions['mode'],
  };
  const index = await openIndex(openOptions(values));
  try {
    const res = await index.search(opts);
    const dates =
      opts.sortBy === 'date' || opts.since !== undefined || opts.until !== undefined || opts.boostRecent !== undefined;
    // Matched words are marked on a terminal, unless NO_COLOR is set (https://no-color.org);
    // FORCE_COLOR marks them in a pipe too.
    const force = process.env.FORCE_COLOR !== undefined && process.env.FORCE_COLOR !== '0';
    const marks = force || (process.stdout.isTTY === true && !process.env.NO_COLOR);
    process.stdout.write(values.json ? `${JSON.stringify(res, null, 2)}\n` : `${formatSearch(res, dates, marks)}\n`);
    return res.total > 0 ? 0 : 1;
  } finally {
    await index.close();
  }
}
