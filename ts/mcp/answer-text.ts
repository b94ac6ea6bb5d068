/**
 * What the model reads: an answer as compact text (the content block), beside the JSON a
 * program reads (structuredContent). Clients put the text before the model, so it says
 * what an agent acts on, once, without JSON's quotes, keys and escapes — a default page costs
 * about half its JSON (`bench/probes/mcp-cost.js`). Fields another one implies are left out
 * (`signed` by `integrity`, a name or category the id already shows), and a few that only serve
 * programs (ONLY_WHEN_ASKED); fields the caller asked for by `include_fields` are always shown.
 */
import type { FetchFailure } from '../errors.js';
import type { FetchResponse } from '../fetch.js';
import type { SearchResult } from '../result-fields.js';
import type { SearchResponse } from '../search-results.js';
import { printable } from '../printable.js';
import { spaceLabel } from '../spaces.js';

/** Fields the text shows in its own way (the rest, when present, as `key: value` lines). */
const SHOWN_INLINE = new Set([
  'id',
  'type',
  'score',
  'source',
  'bundle',
  'integrity',
  'signed',
  'tokens',
  'match',
  'date',
  'shadows',
  'shadowed_by',
  'name',
  'title',
  'description',
  'category',
  'preview',
]);
/**
 * Shown only when asked for: positions in the preview (for programs that mark words); the file's
 * path (rye_fetch loads an item with its signature checked, and says its path); all metadata (its
 * version is on the result's first line; a transcript's metadata alone can outweigh a page).
 */
const ONLY_WHEN_ASKED = new Set(['highlights', 'path', 'metadata']);

const MATCHED_BY = { keyword: 'by words', semantic: 'by meaning', both: 'by words and meaning' } as const;

/** A search page as text: a header, one block per result, then warnings and the next step. */
export function searchText(res: SearchResponse & { usage_hint?: string }, asked?: readonly string[]): string {
  const n = res.results.length;
  const range = n ? `${res.offset + 1}-${res.offset + n} of ${res.total}` : `0 of ${res.total}`;
  const how = [res.search_type, res.vectors && `${res.vectors} vectors`, res.relaxed && 'relaxed'].filter(Boolean);
  const lines = [
    `${range} results for ${JSON.stringify(res.query)} (${how.join(', ')}; scope ${res.scope}, space ${res.space})`,
  ];
  const shown = new Set(asked);
  for (const [i, r] of res.results.entries()) lines.push(...resultLines(r, res.offset + i + 1, shown));
  if (res.counts) {
    const facet = (name: string, counts: Record<string, number>) =>
      `${name} ${Object.entries(counts)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}`;
    lines.push(
      `counts: ${Object.entries(res.counts)
        .map(([k, v]) => facet(k, v))
        .join('; ')}`,
    );
  }
  for (const w of res.warnings ?? []) lines.push(`warning: ${w}`);
  if (res.usage_hint) lines.push(res.usage_hint);
  return lines.join('\n');
}

function resultLines(r: SearchResult, rank: number, asked: ReadonlySet<string>): string[] {
  const facts = [
    r.score !== undefined && `score ${r.score}`,
    spaceLabel(r.source, r.bundle),
    r.integrity ?? (r.signed === undefined ? undefined : r.signed ? 'signed' : 'not signed'),
    typeof r.metadata?.version === 'string' && `v${r.metadata.version}`,
    r.tokens !== undefined && `~${r.tokens} tokens`,
    r.match && MATCHED_BY[r.match],
    r.date?.slice(0, 10),
    r.shadowed_by && `shadowed by ${r.shadowed_by}`,
    r.shadows?.length && `shadows ${r.shadows.map((s) => s.space).join(', ')}`,
  ].filter((f): f is string => typeof f === 'string' && f !== '');
  const lines = [`${rank}. ${r.type}:${printable(r.id)}${facts.length ? ` | ${facts.join(' | ')}` : ''}`];
  const leaf = r.id.slice(r.id.lastIndexOf('/') + 1);
  const parent = r.id.includes('/') ? r.id.slice(0, r.id.lastIndexOf('/')) : '';
  const title = r.title && (asked.has('title') || r.title !== leaf) ? r.title : undefined;
  const about = oneLine([title, r.description].filter(Boolean).join(' - '));
  if (about) lines.push(`   ${about}`);
  if (r.name !== undefined && (asked.has('name') || (r.name !== leaf && r.name !== r.title)))
    lines.push(`   name: ${oneLine(r.name)}`);
  if (r.category && (asked.has('category') || r.category !== parent)) lines.push(`   category: ${oneLine(r.category)}`);
  if (r.preview) lines.push(`   > ${oneLine(r.preview)}`);
  for (const [key, value] of Object.entries(r)) {
    if (value === undefined || SHOWN_INLINE.has(key) || (ONLY_WHEN_ASKED.has(key) && !asked.has(key))) continue;
    lines.push(`   ${key}: ${key === 'metadata' ? pairs(value as Record<string, unknown>) : plain(value)}`);
  }
  return lines;
}

/** An item loaded by rye_fetch: what it is and where it comes from, then its content as it is. */
export function fetchText(res: FetchResponse): string {
  const space = spaceLabel(res.source, res.bundle);
  const version = res.metadata?.version ? `v${res.metadata.version}` : undefined;
  const head = [`${res.item_type}:${res.item_id}`, space, res.integrity, version].filter(Boolean).join(' | ');
  const lines = [head, `path: ${res.path}`];
  if (res.copied_to) lines.push(`copied to ${res.copied_to}: ${res.destination_path}`);
  if (res.warning) lines.push(`warning: ${res.warning}`);
  return `${lines.join('\n')}\n\n${res.content}`;
}

/** Several items loaded at once: each one's text, or its failure, in order. */
export function fetchManyText(items: readonly (FetchResponse | FetchFailure)[]): string {
  return items
    .map((item) =>
      item.status === 'success'
        ? fetchText(item)
        : `error ${item.item_id}: ${item.code}: ${item.error}${item.hint ? ` (hint: ${item.hint})` : ''}`,
    )
    .join('\n\n---\n\n');
}

/** `text` on one line: runs of white space as one space, other control characters escaped. */
function oneLine(text: string): string {
  return printable(text.replace(/\s+/g, ' ').trim());
}

function plain(value: unknown): string {
  return typeof value === 'string' ? oneLine(value) : JSON.stringify(value);
}

function pairs(value: Record<string, unknown>): string {
  return Object.entries(value)
    .map(([k, v]) => `${k} ${plain(v)}`)
    .join(', ');
}
