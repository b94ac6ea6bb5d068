// The request crosses to the core without what the core would take anyway (ts/wire.ts's
// `requestJson`; tests/wire_keys.rs holds its defaults to the core's). Leaving keys out must
// change no answer: each option at its default, left out or named, and away from it, through the
// public API.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { createMemoryIndex } from '../dist/index.js';
import { buildRequest } from '../dist/search-request.js';
import { REQUEST_DEFAULTS, requestJson, requestsJson } from '../dist/wire.js';

describe('the request on the wire', () => {
  it('leaves out keys at their defaults, empty lists and absent options, and keeps the rest', () => {
    const plain = JSON.parse(requestJson(buildRequest({ query: 'needle' }, undefined).req));
    assert.deepEqual(plain, { query: 'needle' });
    const req = buildRequest(
      {
        query: 'needle',
        scope: 'tool',
        limit: 3,
        offset: 2,
        fuzzy: { enabled: true, max_distance: 1 },
        preview_chars: 0,
        sort_by: 'name',
        facets: true,
      },
      undefined,
    ).req;
    const sent = JSON.parse(requestJson(req));
    for (const key of ['limit', 'offset', 'fuzzy', 'previewChars', 'sortBy', 'facets', 'scopes'])
      assert.deepEqual(sent[key], JSON.parse(JSON.stringify(req[key])), key);
    for (const [key, value] of Object.entries(REQUEST_DEFAULTS))
      if (key in sent) assert.notDeepEqual(sent[key], value, `${key} sent at its default`);
    assert.deepEqual(JSON.parse(requestsJson([req, req])), [sent, sent]);
  });

  it('gives the same answers whether an option at its default is named or left out', async () => {
    const index = createMemoryIndex();
    await index.add(
      Array.from({ length: 30 }, (_, i) => ({
        id: `tools/needle-${i}`,
        kind: 'tool',
        title: `needle tool ${i}`,
        description: i % 2 ? 'threads a needle' : 'sews with a needle and thread',
      })),
    );
    const named = {
      limit: 10,
      offset: 0,
      fuzzy: { enabled: false },
      preview_chars: 200,
      sort_by: 'score',
      facets: false,
      min_score: 0,
      count: 'exact',
    };
    const left = await index.search({ query: 'needle thread' });
    const given = await index.search({ query: 'needle thread', ...named });
    assert.deepEqual(given, left);
    assert.equal(left.results.length, 10);
    assert.equal(left.total, 30);
    const away = await index.search({ query: 'needle thread', limit: 4, offset: 3, preview_chars: 0, facets: true });
    assert.equal(away.results.length, 4);
    assert.equal(away.offset, 3);
    assert.ok(away.results.every((r) => r.preview === ''));
    assert.ok(away.counts, 'facets asked for');
    assert.deepEqual(
      away.results.map((r) => r.id),
      left.results.slice(3, 7).map((r) => r.id),
    );
    const many = await index.searchMany([{ query: 'needle thread' }, { query: 'needle thread', ...named }]);
    assert.deepEqual(many[0], left);
    assert.deepEqual(many[1], left);
    await index.close();
  });
});
