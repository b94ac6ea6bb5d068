/** What both tools answer a search with: the options an MCP call gives, and the answer an agent gets. */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

import { OPTION_NAMES, optionValue, type SearchOptions } from '../search-options.js';
import type { SearchResponse } from '../search-results.js';
import { fitAnswer } from './answer-budget.js';
import { searchText } from './answer-text.js';
import { resultLinks } from './item-resources.js';
import { okResult } from './errors.js';

/** The search options among a tool's arguments (by their MCP names, which the options accept). */
export function toSearchOptions(args: Record<string, unknown>): SearchOptions {
  return Object.fromEntries(Object.entries(args).filter(([name]) => OPTION_NAMES.has(name))) as SearchOptions;
}

/**
 * A search page as an MCP answer to a call's `args`: text and structured content, within the
 * call's size budget (`max_answer_tokens`, counting both), with the agent's next step.
 */
export function searchAnswer(page: SearchResponse, args: Record<string, unknown>): CallToolResult {
  const asked = optionValue(toSearchOptions(args), 'includeFields');
  const maxTokens = typeof args.max_answer_tokens === 'number' ? args.max_answer_tokens : undefined;
  return fitAnswer(page, maxTokens, (res) => {
    const body = { ...res, usage_hint: usageHint(res) };
    // A caller who named its fields (include_fields) gets those: no links beside them.
    const links = asked ? [] : resultLinks(res.results);
    return okResult(body as unknown as Record<string, unknown>, searchText(body, asked), links);
  });
}

/** One line telling an agent its next step: load an item, or ask for the next page. */
export function usageHint(res: SearchResponse): string {
  const first = res.results[0];
  const load = first
    ? `Load an item's verified content with rye_fetch {"item_id": "${first.type}:${first.id}"}.`
    : res.total > res.offset
      ? `${res.total} results match; ask with a "limit" above 0 to see them.`
      : res.total > 0
        ? `${res.total} results match, all before "offset" ${res.offset}.`
        : res.search_type === 'semantic'
          ? 'No results by meaning: try "mode": "auto" (words and meaning), or other words.'
          : 'No results: try other words, fuzzy, or a wider scope ("*").';
  return res.next_offset !== undefined ? `${load} More results: repeat with "offset": ${res.next_offset}.` : load;
}
