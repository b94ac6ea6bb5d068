// What the Node API adds around a search: `search()` on a memory index of one item, where the
// native search itself is a few microseconds, so the time is the facade's (options checked and
// copied, the request built and sent as JSON, the answer read and shaped). Mean of 200,000 calls
// after 20,000 untimed, over three rounds (best). Compare two builds by running it on each, in turns.
//   RYE_SEARCH_ENCODER=off node bench/probes/facade-overhead.js
import { createMemoryIndex } from '../../dist/index.js';

const index = createMemoryIndex();
await index.add([{ id: 'notes/needle', title: 'needle thing', content: 'a needle in the content' }]);
const options = { query: 'needle', scope: 'knowledge', limit: 10 };
for (let i = 0; i < 20_000; i++) await index.search(options);
const CALLS = 200_000;
let best = Number.POSITIVE_INFINITY;
for (let round = 0; round < 3; round++) {
  const s = performance.now();
  for (let i = 0; i < CALLS; i++) await index.search(options);
  best = Math.min(best, (1000 * (performance.now() - s)) / CALLS);
}
console.log(`search() on a one-item memory index: ${best.toFixed(2)} µs a call (best of 3 rounds of ${CALLS})`);
await index.close();
