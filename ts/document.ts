/**
 * One document builder for both facades: the indexer (files of the spaces) and the memory index
 * (plain documents) describe an item; this turns it into what the core indexes — facets for
 * filters, the stored `extra` each hit shows, the tie-break rank — and sends it to a batch.
 */
import { LimitError, shown } from './errors.js';
import { nativeAsync, type NativeBatch } from './native.js';
import { sourceOf } from './spaces.js';
import type { Integrity } from './trust/trust.js';
import type { NativeDocument } from './wire.js';

/**
 * About how many characters of JSON each text of an upsert holds (a longer document goes alone).
 * A text this short is born and dies in V8's young generation, where collecting it costs little:
 * one text for a whole 5,000-document add went to the old generation and stayed there until a
 * full collection (part of ~100 MB more at the peak of a 63,666-item build).
 */
export const UPSERT_TEXT_CHARS = 64 * 1024;

/** Metadata values longer than this are shown with hits but are not filters. */
const MAX_FACET_CHARS = 200;
/** Metadata kept with the hit but never a filter (long free text). */
const NOT_FACETS = new Set(['docstring']);

/** An item as a facade describes it: the document's text fields as they are, plus what becomes facets and `extra`. */
export interface ItemDescription
  extends Pick<
    NativeDocument,
    | 'key'
    | 'id'
    | 'kind'
    | 'space'
    | 'spaceRank'
    | 'title'
    | 'name'
    | 'description'
    | 'category'
    | 'content'
    | 'path'
    | 'mtime'
    | 'size'
  > {
  version?: string;
  tags: string[];
  /** Epoch milliseconds, or NaN/undefined when the item has no date. */
  date?: number;
  /** What the hit shows under `metadata` (version and tags are added here). */
  metadata: Record<string, unknown>;
  signed: boolean;
  integrity: Integrity;
  /** Facets only this kind of item has (a file's extension). */
  facets?: Record<string, string[]>;
}

export function buildDocument(d: ItemDescription): NativeDocument {
  const metadata: Record<string, unknown> = { ...d.metadata };
  if (d.version) metadata.version = d.version;
  if (d.tags.length) metadata.tags = d.tags;
  // Keys come from items (`constructor`, `__proto__` are metadata keys like any other).
  const facets: Record<string, string[]> = Object.assign(Object.create(null), {
    kind: [d.kind],
    source: [...new Set([d.space, sourceOf(d.space)])],
    signed: [String(d.signed)],
    integrity: [d.integrity],
    ...d.facets,
  });
  if (d.category) facets.category = [d.category];
  if (d.tags.length) facets.tags = d.tags;
  for (const [k, val] of Object.entries(metadata)) {
    if (k in facets || NOT_FACETS.has(k)) continue;
    const values = Array.isArray(val) ? val.map(String) : [String(val)];
    if (values.every((x) => x.length <= MAX_FACET_CHARS)) facets[k] = values;
  }
  const doc: NativeDocument = {
    key: d.key,
    id: d.id,
    kind: d.kind,
    space: d.space,
    spaceRank: d.spaceRank,
    title: d.title,
    name: d.name,
    description: d.description,
    category: d.category,
    content: d.content,
    path: d.path,
    version: d.version ?? null,
    date: d.date !== undefined && Number.isFinite(d.date) ? d.date : null,
    meta: facets,
    extra: [d.signed, d.integrity, Object.keys(metadata).length ? metadata : null, estimateTokens(d)],
  };
  if (d.mtime !== undefined) doc.mtime = d.mtime;
  if (d.size !== undefined) doc.size = d.size;
  return doc;
}

/**
 * About how many tokens the whole item costs an agent to load (a byte count / 4, the usual rule
 * of thumb for English text and code), so it can budget before fetching.
 */
function estimateTokens(d: ItemDescription): number {
  const bytes = d.size ?? Buffer.byteLength(d.title) + Buffer.byteLength(d.description) + Buffer.byteLength(d.content);
  return Math.max(1, Math.ceil(bytes / 4));
}

/**
 * Sends documents to `batch` in one upsert, as JSON texts of about `textChars` (a longer document
 * goes alone): one call, so the native side indexes them all while this thread prepares what
 * comes next (one upsert a text had to wait for this thread between texts, and a refresh that
 * parses files meanwhile took 25% longer). A document no string can hold (past V8's 2^29 - 24
 * characters) is refused with E_LIMIT, naming it, after what came before it was sent.
 */
export async function upsertDocuments<T>(
  batch: Pick<NativeBatch, 'upsert'>,
  items: readonly T[],
  toDocument: (item: T) => NativeDocument,
  textChars = UPSERT_TEXT_CHARS,
): Promise<void> {
  const { texts, tooLarge } = documentTexts(items, toDocument, textChars);
  if (texts.length) await nativeAsync(() => batch.upsert(texts));
  if (tooLarge) throw tooLarge;
}

/**
 * The JSON texts an upsert of `items` sends (see [`upsertDocuments`]), up to a document no string
 * can hold, and the error that names that one.
 *
 * Each document is made by `toDocument` just before it is written, and dies with it: a page of
 * documents made first and alive while the upsert ran was found alive by each collection there,
 * which taught V8 to make the next ones straight in the old generation (allocation-site
 * pretenuring), where they stayed until a full collection (63,666 items added in 5,000s: peak RSS
 * 605 → 546 MB; a million, 2,626 → 2,296 MB).
 */
export function documentTexts<T>(
  items: readonly T[],
  toDocument: (item: T) => NativeDocument,
  textChars = UPSERT_TEXT_CHARS,
): { texts: string[]; tooLarge?: LimitError } {
  const texts: string[] = [];
  let parts: string[] = [];
  let chars = 0;
  const close = () => {
    if (parts.length) texts.push(`[${parts.join(',')}]`);
    parts = [];
    chars = 0;
  };
  for (const item of items) {
    const doc = toDocument(item);
    let json: string;
    try {
      json = JSON.stringify(doc);
    } catch (err) {
      if (!(err instanceof RangeError)) throw err;
      close();
      const tooLarge = new LimitError(`document ${shown(doc.id)} is too large to index`, {
        hint: 'split it into smaller documents, or index the start of its content',
      });
      return { texts, tooLarge };
    }
    // The text would be `[`, the parts and their commas, this document and `]`.
    if (chars + json.length + 2 > textChars) close();
    parts.push(json);
    chars += json.length + 1;
  }
  close();
  return { texts };
}
