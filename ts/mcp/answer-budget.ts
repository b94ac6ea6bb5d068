/**
 * An MCP answer's size budget: agents pay for every token, and clients refuse answers of 25k
 * tokens and more. A page that would not fit is cut at a result boundary, so paging stays
 * exact (`next_offset` is the first result left out), and the answer says so in `warnings`.
 */
import type { SearchResponse } from '../search-results.js';

/** Default budget of one answer, in estimated tokens. */
export const DEFAULT_ANSWER_TOKENS = 8_000;
export const MIN_ANSWER_TOKENS = 500;
export const MAX_ANSWER_TOKENS = 100_000;

/** Estimated tokens of a JSON value as sent (UTF-8 bytes / 4, the rule item `tokens` use): of an MCP answer, its text and structured content together. */
export function estimateTokens(value: unknown): number {
  return Math.ceil(Buffer.byteLength(JSON.stringify(value)) / 4);
}

/**
 * The answer `finish` makes of the page (it adds what follows the results, as the usage hint),
 * cut to the results that fit `maxTokens` with everything it says, the cut's warning included
 * (at least one result, however large). The cut is guessed from each result's size, then moved
 * back a result at a time until the finished answer fits.
 */
export function fitAnswer<T>(
  res: SearchResponse,
  maxTokens = DEFAULT_ANSWER_TOKENS,
  finish: (res: SearchResponse) => T,
): T {
  const whole = finish(res);
  const wholeTokens = estimateTokens(whole);
  if (wholeTokens <= maxTokens) return whole;
  if (res.results.length <= 1) return shortened(res, maxTokens, finish);
  // What the finished answer costs per token of the page (it adds the text copy, the hint).
  const scale = wholeTokens / estimateTokens(res);
  let room = maxTokens - estimateTokens({ ...res, results: [] }) * scale;
  let kept = 0;
  for (const r of res.results) {
    room -= estimateTokens(r) * scale;
    if (room < 0) break;
    kept++;
  }
  for (kept = Math.max(1, kept); ; kept--) {
    const page = cut(res, kept, maxTokens);
    const answer = finish(page);
    if (estimateTokens(answer) <= maxTokens) return answer;
    if (kept === 1) return shortened(page, maxTokens, finish);
  }
}

/** Keys whose values name or place an item: never shortened. */
const WHOLE_KEYS = new Set(['id', 'type', 'space', 'source', 'path', 'integrity', 'match', 'shadows', 'shadowed_by']);
/** Texts are never shortened below this many characters. */
const MIN_TEXT_CHARS = 40;

/**
 * `res` with its longest texts (descriptions, previews, titles, the echoed query, warnings) cut to
 * one length, halved until the finished answer fits `maxTokens` or every text is at the floor: a
 * single large item never makes the answer as large as itself.
 */
function shortened<T>(res: SearchResponse, maxTokens: number, finish: (res: SearchResponse) => T): T {
  let answer = finish(res);
  let page = res;
  // A loop, not Math.max(...): an item with a very long list in its metadata has more texts than
  // a call may take arguments.
  let longest = 0;
  for (const t of texts(res)) longest = Math.max(longest, t.length);
  for (let chars = Math.floor(longest / 2); estimateTokens(answer) > maxTokens; chars = Math.floor(chars / 2)) {
    chars = Math.max(chars, MIN_TEXT_CHARS);
    const warning =
      `texts longer than ${chars} characters were cut to stay within ${maxTokens} tokens (max_answer_tokens): ` +
      'rye_fetch loads an item whole';
    const cut = cutTexts(res, chars) as SearchResponse;
    page = { ...cut, warnings: [...(cut.warnings ?? []), warning] };
    answer = finish(page);
    if (chars === MIN_TEXT_CHARS) break;
  }
  return estimateTokens(answer) > maxTokens ? finish(fewerShadows(page, maxTokens)) : answer;
}

/** Spaces named in a result's `shadows` once an answer is cut to fit: the rest are counted. */
const SHADOWS_NAMED = 10;

/**
 * An item copied into thousands of bundles named them all in `shadows`, past any budget: the
 * lists are cut to their first (highest precedence) spaces, and a warning counts the rest.
 */
function fewerShadows(res: SearchResponse, maxTokens: number): SearchResponse {
  const longest = Math.max(0, ...res.results.map((r) => r.shadows?.length ?? 0));
  if (longest <= SHADOWS_NAMED) return res;
  const warning =
    `shadows lists were cut to their first ${SHADOWS_NAMED} spaces (the longest had ${longest}) to stay ` +
    `within ${maxTokens} tokens (max_answer_tokens)`;
  return {
    ...res,
    results: res.results.map((r) => (r.shadows ? { ...r, shadows: r.shadows.slice(0, SHADOWS_NAMED) } : r)),
    warnings: [...(res.warnings ?? []), warning],
  };
}

/** Every text of `value` that may be shortened. */
function texts(value: unknown, key = ''): string[] {
  if (typeof value === 'string') return WHOLE_KEYS.has(key) ? [] : [value];
  if (Array.isArray(value)) return value.flatMap((v) => texts(v, key));
  if (value && typeof value === 'object' && !WHOLE_KEYS.has(key)) {
    return Object.entries(value).flatMap(([k, v]) => texts(v, k));
  }
  return [];
}

/** A copy of `value` with every text that may be shortened cut to at most `chars` characters. */
function cutTexts(value: unknown, chars: number, key = ''): unknown {
  if (typeof value === 'string') return WHOLE_KEYS.has(key) ? value : cutText(value, chars);
  if (Array.isArray(value)) return value.map((v) => cutTexts(v, chars, key));
  if (value && typeof value === 'object' && !WHOLE_KEYS.has(key)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, cutTexts(v, chars, k)]));
  }
  return value;
}

/** `text` cut to `chars` UTF-16 units and an ellipsis, never inside a surrogate pair. */
function cutText(text: string, chars: number): string {
  if (text.length <= chars) return text;
  const end = /[\uD800-\uDBFF]/.test(text[chars - 1] ?? '') ? chars - 1 : chars;
  return `${text.slice(0, end)}…`;
}

/** The page's first `kept` results, saying where the rest follow. */
function cut(res: SearchResponse, kept: number, maxTokens: number): SearchResponse {
  const next = res.offset + kept;
  const warning =
    `answer cut to ${kept} of ${res.results.length} results to stay within ${maxTokens} tokens ` +
    `(max_answer_tokens): the rest follow at offset ${next}; preview_chars: 0 or include_fields fit more per page`;
  return {
    ...res,
    results: res.results.slice(0, kept),
    has_more: true,
    next_offset: next,
    warnings: [...(res.warnings ?? []), warning],
  };
}
