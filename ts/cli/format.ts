/** Human output: aligned columns that read at a glance. */
import type { SearchResult } from '../result-fields.js';
import type { SearchResponse } from '../search-results.js';
import { printable } from '../printable.js';
import { spaceLabel } from '../spaces.js';

export { printable };

const MARK: Record<string, string> = {
  verified: 'ok',
  unsigned: '-',
  modified: 'MODIFIED',
  untrusted: 'untrusted',
  invalid: 'INVALID',
};

function pad(s: string, n: number): string {
  return s.length >= n ? s : s + ' '.repeat(n - s.length);
}

function cut(s: string, n: number): string {
  return s.length <= n ? s : `${s.slice(0, Math.max(0, n - 1))}…`;
}

export function formatTable(cells: string[][]): string {
  const rows = cells.map((r) => r.map(printable));
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows
    .map((r) =>
      r
        .map((c, i) => (i === r.length - 1 ? c : pad(c, widths[i]!)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** Terminal marks for matched words (reverse video), only when stdout is a terminal. */
const MARK_ON = '\x1b[7m';
const MARK_OFF = '\x1b[27m';

/** A preview cut to `width`, its matched words marked when `marks` is set. */
export function markedPreview(r: SearchResult, width: number, marks: boolean): string {
  const text = cut(r.preview, width);
  if (!marks || !r.highlights?.length) return printable(text);
  // Escaped piece by piece: the highlights index the preview as it came.
  let out = '';
  let at = 0;
  for (const [start, end] of r.highlights) {
    if (end > text.length - (text.length < r.preview.length ? 1 : 0)) break;
    out += printable(text.slice(at, start)) + MARK_ON + printable(text.slice(start, end)) + MARK_OFF;
    at = end;
  }
  return out + printable(text.slice(at));
}

/** `dates`: show each result's date (when the search is about time: sorted by date, since, until). */
export function formatSearch(res: SearchResponse, dates = false, marks = false): string {
  if (res.results.length === 0) {
    const none =
      res.total > 0
        ? `no results on this page (${res.total} in total, offset ${res.offset})`
        : `no results for ${printable(JSON.stringify(res.query))}`;
    return [none, ...countsAndWarnings(res)].join('\n');
  }
  // The note line under each result is indented by 6: the rest of the terminal is its room.
  const width = Math.max(20, (process.stdout.columns || 120) - 6);
  const dated = dates && res.results.some((r) => r.date);
  const rows = [['SCORE', 'TYPE', 'SPACE', 'SIGNATURE', ...(dated ? ['DATE'] : []), 'ID']];
  const notes: string[] = [];
  for (const r of res.results) {
    let id = r.id;
    if (r.shadows?.length) id += `  (shadows ${r.shadows.map((s) => s.space).join(', ')})`;
    if (r.shadowed_by) id += `  (shadowed by ${r.shadowed_by})`;
    if (r.match === 'semantic') id += '  (by meaning)';
    // `include_fields` may leave any of these out: a column shows `-` for what was not asked.
    rows.push([
      typeof r.score === 'number' ? r.score.toFixed(3) : '-',
      r.type ?? '-',
      spaceLabel(r.source, r.bundle) ?? '-',
      MARK[r.integrity] ?? r.integrity ?? '-',
      ...(dated ? [r.date?.slice(0, 10) ?? '-'] : []),
      id,
    ]);
    const line = [r.title && r.title !== r.name ? r.title : '', r.description].filter(Boolean).join(' — ');
    const preview = r.preview ? `      > ${markedPreview(r, width - 2, marks)}` : '';
    const why = r.explain?.length
      ? `      = ${r.explain.map((c) => `${c.field}:${c.term} (${c.how}) ${c.weight}×${c.bm25}`).join(' + ')}`
      : '';
    notes.push(
      [line ? `      ${cut(printable(line), width)}` : '', preview, printable(why)].filter(Boolean).join('\n'),
    );
  }
  const table = formatTable(rows).split('\n');
  const out = [table[0]!];
  res.results.forEach((_, i) => {
    out.push(table[i + 1]!);
    if (notes[i]) out.push(notes[i]!);
  });
  const shown = `${res.offset + 1}–${res.offset + res.results.length} of ${res.total}`;
  out.push(
    '',
    printable(
      `${shown} result${res.total === 1 ? '' : 's'} for ${JSON.stringify(res.query)} in ${res.scope} (${res.space}, ${res.search_type})`,
    ),
  );
  out.push(...countsAndWarnings(res));
  return out.join('\n');
}

/** The lines after the results: facet counts (`--facets`), then warnings. */
function countsAndWarnings(res: SearchResponse): string[] {
  const out: string[] = [];
  for (const [facet, values] of Object.entries(res.counts ?? {})) {
    const list = Object.entries(values)
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .map(([v, n]) => `${v} ${n}`);
    out.push(printable(`${facet}: ${list.join(', ') || '-'}`));
  }
  for (const w of res.warnings ?? []) out.push(printable(`warning: ${w}`));
  return out;
}
