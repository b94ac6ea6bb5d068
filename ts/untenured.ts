/**
 * Objects and arrays of answers, and of the requests a batch holds while it runs, made where V8
 * keeps no allocation site.
 *
 * V8 watches what each object or array literal (and `new Array`) allocates: once most of it
 * outlives a young-generation collection, that literal allocates in the old generation from then
 * on, where only a full collection frees it. A `searchMany` holds every answer until it returns,
 * so it taught V8 that answers live long, and every stream and search after it put its answers
 * straight in the old generation: a stream of 100,000 searches after one `searchMany` of 20,000
 * grew by 1 GB before a full collection, and ran at 17,000 searches a second instead of 26,000
 * (`bench/probes/stream-memory.js`). A constructor, an empty `{}` and a copied array carry no such
 * feedback, so answers made with these die young wherever they were made before.
 */

/**
 * `init` (a `function`, not an arrow) as the constructor of plain objects: it fills `this`, and
 * what it makes has Object.prototype as its prototype, as a literal has (`deepStrictEqual` sees
 * no difference).
 */
export function plainObjects<A extends unknown[], T>(init: (this: T, ...args: A) => void): Constructor<A, T> {
  init.prototype = Object.prototype;
  return init as unknown as Constructor<A, T>;
}

type Constructor<A extends unknown[], T> = new (...args: A) => T;

/** One empty list shared by whatever has none (no warnings): never written, so never copied. */
export const NOTHING: readonly never[] = Object.freeze([]);

const NONE: never[] = [];
const PAIR: [number, number] = [0, 0];
/**
 * Arrays of holes to copy, by length: writing an array's length is a runtime call, 5× dearer than
 * the copy. Up to 64 covers a page at the default limit and a hit's highlights; longer is rare.
 */
const HOLES: readonly unknown[][] = Array.from({ length: 65 }, (_, n) => new Array<unknown>(n));

/** An empty array of `length` holes, to be filled. */
export function arrayOf<T>(length: number): T[] {
  if (length < HOLES.length) return HOLES[length]!.slice() as T[];
  const out: T[] = NONE.slice();
  out.length = length;
  return out;
}

/** `[a, b]`, copied from a template instead of written as a literal. */
export function pair(a: number, b: number): [number, number] {
  const out = PAIR.slice() as [number, number];
  out[0] = a;
  out[1] = b;
  return out;
}
