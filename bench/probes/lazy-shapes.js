// Why lazy results are views (ts/result-view.ts) and plain results stay eager: what making one
// result object costs in each shape a lazy field could take, with its metadata (a Debian item's:
// a version and four tags) as the field to defer. Each shape keeps 200,000 objects alive, as a
// searchMany call keeps its answers, and reports ns an object (best of 8 passes) and the keys
// `Object.keys` sees:
//   - eager: every field a data property, the metadata parsed (today's plain result);
//   - no metadata: the same object without parsing (the floor of any eager shape);
//   - getter in the literal / defineProperty: the metadata deferred behind an own accessor, so
//     `Object.keys`, spread and `structuredClone` still see it: where it lies kept in a WeakMap,
//     or stamped in private fields with one shared descriptor (ts/deferred-field.ts, what plain
//     results do since 2026-12-03);
//   - class: fields behind prototype getters (what ResultView does): nothing of its own to see.
//   node bench/probes/lazy-shapes.js
import { deferredFields } from '../../dist/deferred-field.js';

const meta = JSON.stringify({ version: '1.4-24.1', tags: ['devel::editor', 'role::program', 'use::editing', 'x'] });
const text = `${'x'.repeat(400)}${meta}`;
const N = 200_000;
const kept = new Array(N);

const eager = (i) => ({
  id: text.slice(0, 20),
  name: text.slice(3, 30),
  score: i,
  title: text.slice(5, 40),
  metadata: JSON.parse(text.slice(400)),
});
const noMetadata = (i) => ({
  id: text.slice(0, 20),
  name: text.slice(3, 30),
  score: i,
  title: text.slice(5, 40),
  metadata: undefined,
});
const literalGetter = (i) => ({
  id: text.slice(0, 20),
  name: text.slice(3, 30),
  score: i,
  title: text.slice(5, 40),
  get metadata() {
    return JSON.parse(text.slice(400));
  },
});
const raw = new WeakMap();
const deferred = {
  get() {
    return JSON.parse(raw.get(this));
  },
  enumerable: true,
  configurable: true,
};
const defined = (i) => {
  const o = { id: text.slice(0, 20), name: text.slice(3, 30), score: i, title: text.slice(5, 40) };
  raw.set(o, text.slice(400));
  return Object.defineProperty(o, 'metadata', deferred);
};
const stamped = deferredFields({ metadata: (t, at) => JSON.parse(t.slice(at)) });
const deferredField = (i) => {
  const o = { id: text.slice(0, 20), name: text.slice(3, 30), score: i, title: text.slice(5, 40) };
  stamped.stamp(o, text, 400);
  stamped.defer(o, 'metadata');
  return o;
};
class View {
  #at;
  constructor(at) {
    this.#at = at;
  }
  get id() {
    return text.slice(0, 20);
  }
  get score() {
    return this.#at;
  }
  get metadata() {
    return JSON.parse(text.slice(400));
  }
}
const view = (i) => new View(i);

const rows = [];
for (const [shape, make] of [
  ['eager (plain result)', eager],
  ['no metadata (floor)', noMetadata],
  ['own getter in the literal', literalGetter],
  ['own accessor by defineProperty, WeakMap', defined],
  ['own accessor, private-field stamp (deferred-field.ts)', deferredField],
  ['class, prototype getters (view)', view],
]) {
  let best = Number.POSITIVE_INFINITY;
  for (let pass = 0; pass < 8; pass++) {
    const s = performance.now();
    for (let i = 0; i < N; i++) kept[i] = make(i);
    best = Math.min(best, performance.now() - s);
  }
  rows.push({ shape, 'ns an object': Math.round((1e6 * best) / N), 'Object.keys': Object.keys(kept[0]).join(',') });
}
console.table(rows);
