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

/** The page cut to the results that fit `maxTokens` (at least one), with a warning when cut. */
export function fitAnswer(res: SearchResponse, maxTokens = DEFAULT_ANSWER_TOKENS): SearchResponse {
  // Room for the warning and the usage hint the cut adds.
  let room = maxTokens - estimateTokens({ ...res, results: [] }) - 80;
  let kept = 0;
  for (const r of res.results) {
    room -= estimateTokens(r);
    if (room < 0 && kept > 0) break;
    kept++;
  }
  if (kept === res.results.length) return res;
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
