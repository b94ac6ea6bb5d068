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

/** Estimated tokens of a JSON value as sent (UTF-8 bytes / 4, the rule item `tokens` use). */
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
  if (res.results.length <= 1 || estimateTokens(whole) <= maxTokens) return whole;
  let room = maxTokens - estimateTokens({ ...res, results: [] });
  let kept = 0;
  for (const r of res.results) {
    room -= estimateTokens(r);
    if (room < 0) break;
    kept++;
  }
  for (kept = Math.max(1, kept); ; kept--) {
    const answer = finish(cut(res, kept, maxTokens));
    if (kept === 1 || estimateTokens(answer) <= maxTokens) return answer;
  }
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
