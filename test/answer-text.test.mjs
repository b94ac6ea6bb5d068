// The text an MCP answer puts before the model (ts/mcp/answer-text.ts): one block per result, each
// starting on its own line whatever the items hold, and only the fields that carry something.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import fc from 'fast-check';

import { searchText } from '../dist/mcp/answer-text.js';
import { usageHint } from '../dist/mcp/search-answer.js';

const envelope = (results) => ({
  results,
  total: results.length,
  query: 'q',
  scope: '*',
  space: 'all',
  limit: 10,
  offset: 0,
  search_type: 'keyword',
  has_more: false,
});

const result = (over) => ({
  id: 'rye/core/sign',
  name: 'sign',
  title: 'sign',
  description: 'Sign an item',
  category: 'rye/core',
  score: 1,
  type: 'tool',
  source: 'project',
  preview: 'sign it',
  path: '/p/.ai/tools/rye/core/sign.py',
  signed: true,
  integrity: 'verified',
  ...over,
});

describe('MCP answer text', () => {
  it('leaves out what the id implies and what serves programs, unless asked', () => {
    const text = searchText(envelope([result({ metadata: { version: '1.2.0', author: 'me' }, highlights: [[0, 4]] })]));
    assert.equal(
      text,
      [
        '1-1 of 1 results for "q" (keyword; scope *, space all)',
        '1. tool:rye/core/sign | score 1 | project | verified | v1.2.0',
        '   Sign an item',
        '   > sign it',
      ].join('\n'),
    );
    const asked = searchText(envelope([result({ metadata: { version: '1.2.0' } })]), ['path', 'metadata', 'name']);
    assert.match(asked, /^ {3}path: \/p\/\.ai\/tools\/rye\/core\/sign\.py$/m);
    assert.match(asked, /^ {3}metadata: version 1\.2\.0$/m);
    assert.match(asked, /^ {3}name: sign$/m);
  });

  it('any text in any field keeps one result per block, each starting on its own line', () => {
    const bidi = fc.constantFrom('\u202e', '\u2066', '\u200f', '\u0085', '\u009b', 'a');
    const hostile = fc.oneof(fc.string({ unit: 'binary', maxLength: 40 }), fc.string({ unit: bidi, maxLength: 8 }));
    fc.assert(
      fc.property(
        fc.array(
          fc.record({ id: hostile, title: hostile, description: hostile, preview: hostile, category: hostile }),
          { maxLength: 5 },
        ),
        (over) => {
          const results = over.map((o) => result({ ...o, name: o.id }));
          const lines = searchText(envelope(results)).split('\n');
          const heads = lines.filter((l) => /^\d+\. tool:/.test(l));
          assert.equal(heads.length, results.length);
          // Every other line is indented under its result, or the header.
          assert.ok(
            lines.slice(1).every((l) => /^\d+\. tool:/.test(l) || l.startsWith('   ')),
            JSON.stringify(lines),
          );
          // Nor C1 controls, nor the bidirectional overrides that show one text and hold another.
          assert.ok(lines.every((l) => !/[\p{Cc}\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u.test(l)));
        },
      ),
      { numRuns: Number(process.env.RYE_FUZZ_CASES || 2000) },
    );
  });
});

describe('MCP usage hint', () => {
  const empty = { results: [], total: 0, offset: 0, limit: 10, query: 'q', scope: '*', space: 'all', has_more: false };
  it('an empty search by meaning points to auto; an empty keyword search to other words', () => {
    assert.match(usageHint({ ...empty, search_type: 'semantic' }), /^No results by meaning: try "mode": "auto"/);
    assert.match(usageHint({ ...empty, search_type: 'keyword' }), /^No results: try other words, fuzzy/);
  });
});
