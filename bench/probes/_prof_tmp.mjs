import { createMemoryIndex } from '../../dist/index.js';
import { buildRequest } from '../../dist/search-request.js';
import { tier } from '../corpus.js';
import { queryMix } from '../queries.js';
const index = createMemoryIndex();
const docs = tier('c60k');
for (let i = 0; i < docs.length; i += 5000) await index.add(docs.slice(i, i + 5000));
await index.ready();
const extra = JSON.parse(process.argv[2] ?? '{}');
const terms = queryMix().queries.filter((q) => q.kind.startsWith(process.argv[3] ?? 'single')).map((q) => q.terms[0]);
const reqs = Array.from({ length: 2048 }, (_, i) => buildRequest({ query: terms[i % terms.length], scope: 'knowledge', limit: 10, ...extra }, undefined).req);
const body = JSON.stringify(reqs);
console.error('READY', process.pid);
const t0 = Date.now();
let n = 0;
while (Date.now() - t0 < 12000) { await index.native.searchMany(body); n += 2048; }
console.error('q/s', n / 12);
await index.close();
