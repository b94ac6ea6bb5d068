// Property test of trust and shadows over real spaces (project, user, two bundles) through the
// Node API: whatever the options, every result's `signed` is exactly `integrity: verified`,
// `filters: {signed: true}` keeps only verified items, and shadow annotations are exactly what
// the files on disk and the searched spaces make them (an oracle computed from the layout).
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, describe, it } from 'node:test';

import fc from 'fast-check';

import { openIndex, RyeSearchError, signText, trustFile } from '../../dist/index.js';
import { directive, pyTool, workspace } from '../helpers.mjs';

const RUNS = Number(process.env.RYE_SPACE_FUZZ_RUNS || 400);
const trusted = generateKeyPairSync('ed25519').privateKey;
const stranger = generateKeyPairSync('ed25519').privateKey;
/** Precedence order: project, user, then bundles in the order given. */
const SPACES = ['project', 'user', 'system:a', 'system:b'];
const SEARCHED = {
  all: SPACES,
  local: SPACES, // every local space: project, user and system
  project: ['project'],
  user: ['user'],
  system: ['system:a', 'system:b'],
  'system:a': ['system:a'],
  'system:b': ['system:b'],
};
const WORDS = ['deploy', 'backup', 'restore', 'cluster', 'shell', 'archive'];

/** Which spaces hold each item (`type:id`), and the integrity each copy must have: signed by
 * the trusted key (verified), by a key no space trusts (untrusted), edited after signing
 * (modified), or not signed. */
function layout() {
  const copies = new Map();
  const integrity = new Map();
  const files = Object.fromEntries(SPACES.map((s) => [s, {}]));
  let n = 0;
  for (let i = 0; i < 24; i++) {
    const kind = i % 2 ? 'tool' : 'directive';
    const id = `ns${i % 3}/item${i}`;
    // Each item is in a different subset of the spaces (never none).
    const mask = (i % 15) + 1;
    for (const [k, space] of SPACES.entries()) {
      if (!(mask & (1 << k))) continue;
      const words = `${WORDS[i % 6]} ${WORDS[(i + k) % 6]} ${space.replace(':', ' ')}`;
      const signing = ['trusted', 'stranger', 'edited', 'unsigned'][(n++ + k) % 4];
      const text =
        kind === 'tool'
          ? pyTool({ description: `${words} tool` })
          : directive(`item${i}`, `${words} directive`, { body: 'steps' });
      const ext = kind === 'tool' ? '.py' : '.md';
      let body = text;
      if (signing !== 'unsigned') body = signText(text, kind, ext, signing === 'stranger' ? stranger : trusted);
      if (signing === 'edited') body = body.replace(words, `${words} changed`);
      files[space][`${kind === 'tool' ? 'tools' : 'directives'}/${id}${ext}`] = body;
      const key = `${kind}:${id}`;
      copies.set(key, [...(copies.get(key) ?? []), space]);
      const expected = { trusted: 'verified', stranger: 'untrusted', edited: 'modified', unsigned: 'unsigned' };
      integrity.set(`${key}@${space}`, expected[signing]);
    }
  }
  const trust = trustFile(trusted, 'trusted');
  files.project[`config/keys/trusted/${trust.name}`] = trust.text;
  return { files, copies, integrity };
}

describe('trust and shadows over real spaces (fast-check)', () => {
  const ws = workspace();
  const { files, copies, integrity } = layout();
  let index;
  before(async () => {
    ws.write('project', files.project);
    ws.write('user', files.user);
    ws.write('a', files['system:a']);
    ws.write('b', files['system:b']);
    index = await openIndex({
      projectPath: ws.project,
      userSpace: ws.user,
      cacheDir: ws.cache,
      includeDefaultBundle: false,
      systemBundles: [
        { id: 'a', root: ws.bundle('a') },
        { id: 'b', root: ws.bundle('b') },
      ],
      watch: false,
    });
  });
  after(async () => {
    await index.close();
    ws.cleanup();
  });

  it('signed is verified, signed filters hold, shadows match the layout, whatever the options', async () => {
    const options = fc.record(
      {
        query: fc.oneof(
          fc
            .array(fc.constantFrom(...WORDS, 'tool', 'directive', 'system', 'user'), { minLength: 1, maxLength: 4 })
            .map((w) => w.join(' ')),
          fc.constant('*'),
        ),
        space: fc.constantFrom(...Object.keys(SEARCHED)),
        scope: fc.constantFrom(undefined, 'tool', 'directive', 'tool.ns1.*', ['tool', 'directive']),
        mode: fc.constantFrom('auto', 'keyword', 'semantic', 'hybrid'),
        limit: fc.integer({ min: 1, max: 60 }),
        offset: fc.integer({ min: 0, max: 20 }),
        filters: fc.constantFrom(undefined, { signed: true }, { signed: false }),
        facets: fc.boolean(),
        sort_by: fc.constantFrom('score', 'name'),
      },
      { requiredKeys: ['query', 'space'] },
    );
    let results = 0;
    let shadowed = 0;
    await fc.assert(
      fc.asyncProperty(options, async (opts) => {
        const what = JSON.stringify(opts);
        let res;
        try {
          res = await index.search(opts);
        } catch (err) {
          assert.ok(err instanceof RyeSearchError && err.hint, `${what}: ${err}`);
          return;
        }
        const searched = SEARCHED[opts.space];
        for (const r of res.results) {
          results++;
          const space = r.bundle ? `system:${r.bundle}` : r.source;
          assert.ok(searched.includes(space), `${what}: ${r.id} from ${space}`);
          assert.equal(r.signed, r.integrity === 'verified', `${what}: ${r.id} signed ${r.signed}, ${r.integrity}`);
          assert.equal(r.integrity, integrity.get(`${r.type}:${r.id}@${space}`), `${what}: ${r.type}:${r.id}@${space}`);
          if (opts.filters?.signed === true) assert.equal(r.integrity, 'verified', `${what}: ${r.id}`);
          if (opts.filters?.signed === false) assert.equal(r.signed, false, `${what}: ${r.id}`);
          // The oracle: the copies of this item among the searched spaces, in precedence order.
          const held = (copies.get(`${r.type}:${r.id}`) ?? []).filter((s) => searched.includes(s));
          assert.ok(held.includes(space), `${what}: ${r.type}:${r.id} is not in ${space}`);
          if (held.length < 2) {
            assert.equal(r.shadows, undefined, `${what}: ${r.id} shadows nothing`);
            assert.equal(r.shadowed_by, undefined, `${what}: ${r.id} is shadowed by nothing`);
          } else if (held[0] === space) {
            assert.deepEqual(
              r.shadows,
              held.slice(1).map((s) => ({ space: s })),
              `${what}: ${r.id}`,
            );
            assert.equal(r.shadowed_by, undefined);
            shadowed++;
          } else {
            assert.equal(r.shadowed_by, held[0], `${what}: ${r.id} in ${space}`);
            assert.equal(r.shadows, undefined);
            shadowed++;
          }
        }
        if (res.counts?.integrity && opts.filters?.signed === true) {
          assert.deepEqual(
            Object.keys(res.counts.integrity).filter((k) => res.counts.integrity[k] > 0),
            res.total ? ['verified'] : [],
          );
        }
      }),
      { numRuns: RUNS, seed: Number(process.env.RYE_SPACE_FUZZ_SEED || 20261126) },
    );
    assert.ok(results > RUNS && shadowed > RUNS / 4, `results ${results}, shadow annotations ${shadowed}`);
  });
});
