import { parseArgs } from 'node:util';

import { InvalidArgumentError } from '../errors.js';
import { openIndex } from '../rye-index.js';
import { type OptionName, type OptionSpec, SEARCH_OPTIONS, type SearchOptions, type Shape } from '../search-options.js';
import { COMMON_HELP, COMMON_OPTIONS, integerArg, numberArg, openOptions, pairs } from './args.js';
import { formatSearch } from './format.js';

/** Every search option that has a flag, with its table row. */
const FLAGS = (Object.entries(SEARCH_OPTIONS) as [OptionName, OptionSpec][]).flatMap(([name, spec]) =>
  spec.cli ? [{ name, spec, cli: spec.cli }] : [],
);

/** `parseArgs` options of the search flags (and their aliases), from the options table. */
const FLAG_OPTIONS = Object.fromEntries(
  FLAGS.flatMap(({ spec, cli }) =>
    [cli.flag, ...(cli.aliases ?? [])].map((flag) => [
      flag,
      { type: spec.shape.type === 'boolean' ? 'boolean' : 'string', multiple: cli.repeatable ?? false } as const,
    ]),
  ),
);

/** One help line: the flag and its argument, then the text, wrapped under its column. */
function helpLine(flag: string, text: string): string {
  const width = 100;
  const words = text.split(' ');
  const lines: string[] = [];
  let line = `  ${flag}`.padEnd(23);
  for (const word of words) {
    if (line.trim().length > flag.length && line.length + word.length + 1 > width) {
      lines.push(line.trimEnd());
      line = ' '.repeat(23);
    }
    line += `${word} `;
  }
  lines.push(line.trimEnd());
  return lines.join('\n');
}

/**
 * How long a search waits for the sentence encoder to settle before answering with the static
 * model: long enough for the package's own documentation or a small project on a first run
 * (under a second), short enough not to hold a large one (`rye-search index` waits for it).
 */
const ENCODER_WAIT_MS = 3000;

export const SEARCH_HELP = `Usage: rye-search search QUERY [options]

Searches directives, tools and knowledge with the rye_search query language:
terms (implicit AND), AND / OR / NOT, (groups), "phrases", wild*cards, * for everything.

${FLAGS.map(({ spec, cli }) => {
  const flags = [cli.flag, ...(cli.aliases ?? [])].map((f) => `--${f}`).join(', ');
  const text = cli.help ?? spec.doc;
  return helpLine(cli.arg ? `${flags} ${cli.arg}` : flags, text[0]!.toLowerCase() + text.slice(1));
}).join('\n')}
${COMMON_HELP}

Exit status: 0 results found, 1 no results, 2 error.`;

function filterValue(v: string): string | boolean {
  return v === 'true' ? true : v === 'false' ? false : v;
}

/** The value a flag's text gives an option, by the option's shape. */
function flagValue(shape: Shape, raw: string | boolean | string[], flag: string): unknown {
  const list = Array.isArray(raw) ? raw : [];
  switch (shape.type) {
    case 'integer':
      return integerArg(raw as string, flag);
    case 'number':
      return numberArg(raw as string, flag);
    case 'distance':
      return { enabled: true, max_distance: integerArg(raw as string, flag) };
    case 'scopes':
      return list.length === 1 ? list[0] : list;
    case 'record': {
      const fields = pairs(list, flag);
      return Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, Array.isArray(v) ? v.join(' ') : v]));
    }
    case 'filters':
      return Object.fromEntries(
        Object.entries(pairs(list, flag, true)).map(([k, v]) => [
          k,
          Array.isArray(v) ? v.map(filterValue) : filterValue(v),
        ]),
      );
    case 'enums':
      return (raw as string).split(',').map((f) => f.trim());
    default:
      return raw;
  }
}

export async function searchCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { ...COMMON_OPTIONS, ...FLAG_OPTIONS },
  });
  if (values.help) {
    process.stdout.write(`${SEARCH_HELP}\n`);
    return 0;
  }
  const given = values as Record<string, string | boolean | string[] | undefined>;
  if (positionals.length === 0 && given.like === undefined)
    throw new InvalidArgumentError('search needs a QUERY', {
      hint: 'e.g. rye-search search "file system" --scope tool (use "*" for everything)',
    });
  const opts: Record<string, unknown> = { query: positionals.length ? positionals.join(' ') : undefined };
  for (const { name, spec, cli } of FLAGS) {
    // An alias flag sets the option's alias, so that both given are told apart as the API does.
    for (const [flag, key] of [[cli.flag, name], ...(cli.aliases ?? []).map((a) => [a, spec.alias ?? name])]) {
      const raw = given[flag!];
      if (raw !== undefined) opts[key!] = flagValue(spec.shape, raw, flag!);
    }
  }
  const search = opts as SearchOptions;
  // The encoder is read only if this search ranks by meaning before it has settled.
  const index = await openIndex({ ...openOptions(values), encode: false });
  try {
    let res = await index.search(search);
    if (res.vectors === 'static') {
      // Ranked by meaning before the sentence encoder settled (a first run, or new items): a
      // one-off command waits a little for it, then asks again.
      const status = await index.ready({ semantic: 'full', timeoutMs: ENCODER_WAIT_MS }).catch(() => undefined);
      if (status?.vectors === 'encoder') res = await index.search(search);
    }
    const dates =
      search.sortBy === 'date' ||
      search.since !== undefined ||
      search.until !== undefined ||
      search.boostRecent !== undefined;
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
