/**
 * Results that read their fields from their answer's page when first asked for (`lazy: true` of
 * `searchMany` and `searchStream`). Reading `id` or `score` slices the text and reads the table,
 * nothing more; reading any other field shapes the whole result once, by the same rules as a plain
 * result (`shapeHit`), and keeps it. Most of a default answer's cost on the JS thread is shaping
 * results (metadata parsed, strings, objects kept until the call returns), so a caller who ranks
 * by id and score does not pay for the rest.
 *
 * A view is no plain object: `JSON.stringify` and `util.inspect` show the shaped result, and every
 * field reads and writes as on one, but `Object.keys`, spread and `structuredClone` see none of
 * its fields (`toJSON()` is the plain result). A view holds its batch's page until it is dropped.
 */
import { inspect } from 'node:util';

import { type AnswerSource, emptyHit, type HitRead, readHit } from './answer-page.js';
import { RESULT_FIELDS, type SearchResult } from './result-fields.js';

/** How the views of one answer are shaped: its rules, and whether `score` is shown as read. */
export interface ViewShape {
  shape: (hit: HitRead) => SearchResult;
  scoreShown: boolean;
}

/** Every field of a result: defined on the prototype below, at load. */
export interface ResultView extends SearchResult {}

// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the interface above types the fields defined below.
export class ResultView {
  readonly #source: AnswerSource;
  /** Where the hit starts in the page's table. */
  readonly #at: number;
  readonly #how: ViewShape;
  #plain: SearchResult | undefined;

  constructor(source: AnswerSource, at: number, how: ViewShape) {
    this.#source = source;
    this.#at = at;
    this.#how = how;
  }

  /** The plain result, shaped at the first call and the same object after. */
  toJSON(): SearchResult {
    if (!this.#plain) {
      const hit = emptyHit();
      readHit(this.#source, this.#at, hit);
      this.#plain = this.#how.shape(hit);
    }
    return this.#plain;
  }

  [inspect.custom](): SearchResult {
    return this.toJSON();
  }

  // `id` and `score` are read straight from the page until the result is shaped (a written
  // field is the shaped result's from then on).
  get id(): string {
    if (this.#plain) return this.#plain.id;
    const { table, text } = this.#source;
    return text.slice(table[this.#at + 1], table[this.#at + 2]);
  }

  set id(value: string) {
    this.toJSON().id = value;
  }

  get score(): number {
    if (this.#plain || !this.#how.scoreShown) return this.toJSON().score;
    return this.#source.table[this.#at + 3]!;
  }

  set score(value: number) {
    this.toJSON().score = value;
  }
}

// Every other field, through the shaped result.
for (const field of RESULT_FIELDS) {
  if (field === 'id' || field === 'score') continue;
  Object.defineProperty(ResultView.prototype, field, {
    get(this: ResultView) {
      return (this.toJSON() as unknown as Record<string, unknown>)[field];
    },
    set(this: ResultView, value: unknown) {
      (this.toJSON() as unknown as Record<string, unknown>)[field] = value;
    },
    configurable: true,
  });
}
