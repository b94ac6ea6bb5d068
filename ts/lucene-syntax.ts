/**
 * Lucene's operators that agents often write and the query language does not have. Each splits
 * words here, so its number or its ends are searched as words too, and the answer came back
 * empty without a word why: each found gets a warning naming the option that does the job.
 */
import { NOTHING } from './untenured.js';

/** A number as Lucene reads one: `2`, `0.5`, `1e3` (written so, its digits were searched as a word too). */
const NUMBER = String.raw`\d+(?:\.\d+)?(?:[eE][+-]?\d+)?`;

const LUCENE: { pattern: { test(text: string): boolean }; warning: string }[] = [
  {
    // `word~2`, `word~0.8`, `"two words"~5`.
    pattern: new RegExp(`[\\p{L}\\p{N}"]~(?:${NUMBER})?(?![\\p{L}\\p{N}])`, 'u'),
    warning:
      '"~" is no operator here (a number after it is searched as a word): for words near each other pass ' +
      'proximity {"enabled": true, "max_distance": N}; for typos, fuzzy {"enabled": true, "max_distance": 1 or 2}',
  },
  {
    // `word^2`, `"two words"^0.5`, `(a OR b)^3`.
    pattern: new RegExp(`[\\p{L}\\p{N}")]\\^(?:${NUMBER}|\\.\\d+)?(?![\\p{L}\\p{N}])`, 'u'),
    warning:
      '"^" is no operator here (a number after it is searched as a word): leave boosts out; titles and ' +
      'names already weigh most, and fields {"title": "…"} searches one field',
  },
  {
    // `[a TO b]`, `{2020 TO *]`.
    pattern: { test: holdsRange },
    warning:
      '"[a TO b]" ranges are no operator here (their ends are searched as words): for dates pass ' +
      'filters {"date_from": "…", "date_to": "…"}',
  },
];

/**
 * Whether `text` holds `[` or `{`, then ` TO ` (any white space around it) before the next `]`
 * or `}`, then that closer. A range cannot cross a closer, so each stretch up to a closer is
 * looked at once from its first opener: the regular expression that said the same backtracked
 * from every opener, and 200,000 `[` took 55 s on the JS thread before the query's length was
 * refused (an MCP server answered nothing meanwhile).
 */
function holdsRange(text: string): boolean {
  let from = 0;
  for (const closer of text.matchAll(/[\]}]/gu)) {
    const stretch = text.slice(from, closer.index);
    from = closer.index + 1;
    const opener = stretch.search(/[[{]/u);
    if (opener >= 0 && /\sTO\s/u.test(stretch.slice(opener + 1))) return true;
  }
  return false;
}

/** The warnings `queries` (the query and each field's) earn, once each. */
export function luceneWarnings(queries: string[]): readonly string[] {
  // Most queries have none of their characters: one scan spares the three patterns.
  if (!queries.some((q) => /[~^[{]/.test(q))) return NOTHING;
  return LUCENE.filter(({ pattern }) => queries.some((q) => pattern.test(q))).map((l) => l.warning);
}
