/**
 * Lucene's operators that agents often write and the query language does not have. Each splits
 * words here, so its number or its ends are searched as words too, and the answer came back
 * empty without a word why: each found gets a warning naming the option that does the job.
 */
import { NOTHING } from './untenured.js';

/** A number as Lucene reads one: `2`, `0.5`, `1e3` (written so, its digits were searched as a word too). */
const NUMBER = String.raw`\d+(?:\.\d+)?(?:[eE][+-]?\d+)?`;

const LUCENE: { pattern: RegExp; warning: string }[] = [
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
    pattern: /[[{][^\]}]*\sTO\s[^\]}]*[\]}]/u,
    warning:
      '"[a TO b]" ranges are no operator here (their ends are searched as words): for dates pass ' +
      'filters {"date_from": "…", "date_to": "…"}',
  },
];

/** The warnings `queries` (the query and each field's) earn, once each. */
export function luceneWarnings(queries: string[]): readonly string[] {
  // Most queries have none of their characters: one scan spares the three patterns.
  if (!queries.some((q) => /[~^[{]/.test(q))) return NOTHING;
  return LUCENE.filter(({ pattern }) => queries.some((q) => pattern.test(q))).map((l) => l.warning);
}
