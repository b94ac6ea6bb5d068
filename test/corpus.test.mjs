// The real RYE corpus from ../shared (skipped with a message when it is absent).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, it } from 'node:test';

import { openIndex, TrustStore, verifyText } from '../dist/index.js';
import { CORPUS, describeIf, tmpdir } from './helpers.mjs';

const RYEOS = path.join(CORPUS, 'ryeos');
const present = fs.existsSync(RYEOS);
const BUNDLES = ['ryeos', 'ryeos-core', 'ryeos-code', 'ryeos-email', 'ryeos-web'];
const AUTHOR_V1 = '4b987fd4e40303ac';

describeIf(present ? false : `corpus not found at ${RYEOS} (clone outside the workspace)`, 'ryeos corpus', () => {
  let root;
  let index;
  before(async () => {
    root = tmpdir('rye-corpus-');
    fs.cpSync(RYEOS, path.join(root, 'ryeos'), { recursive: true });
    const trusted = path.join(root, 'ryeos', 'project', '.ai', 'config', 'keys', 'trusted');
    fs.mkdirSync(trusted, { recursive: true });
    fs.copyFileSync(
      path.join(root, 'ryeos', 'trusted-keys', `${AUTHOR_V1}.toml`),
      path.join(trusted, `${AUTHOR_V1}.toml`),
    );
    index = await openIndex({
      projectPath: path.join(root, 'ryeos', 'project'),
      userSpace: path.join(root, 'nouser'),
      cacheDir: path.join(root, 'cache'),
      includeDefaultBundle: false,
      systemBundles: BUNDLES.map((id) => ({ id, root: path.join(root, 'ryeos', 'system', id) })),
    });
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  async function everything() {
    const out = [];
    for (const kind of ['directive', 'tool', 'knowledge'])
      out.push(...(await index.search({ query: '*', scope: kind, limit: 1000 })).results);
    return out;
  }

  it('indexes every item file and classifies each one', async () => {
    const all = await everything();
    assert.equal(all.length, index.lastReport.items);
    assert.ok(all.length > 200);
    const counts = {};
    for (const r of all) {
      assert.ok(['verified', 'unsigned', 'modified', 'untrusted', 'invalid'].includes(r.integrity), r.path);
      assert.equal(r.signed, r.integrity === 'verified', `${r.path}: signed ${r.signed} but ${r.integrity}`);
      counts[r.integrity] = (counts[r.integrity] ?? 0) + 1;
    }
    console.log(`ryeos integrity with the author key trusted: ${JSON.stringify(counts)}`);
    assert.ok(counts.verified > all.length / 2, 'most items verify');
    // filters {signed: true} keep exactly the verified items, {signed: false} everything else.
    let signedTrue = 0;
    let signedFalse = 0;
    for (const kind of ['directive', 'tool', 'knowledge']) {
      signedTrue += (await index.search({ query: '*', scope: kind, limit: 0, filters: { signed: true } })).total;
      signedFalse += (await index.search({ query: '*', scope: kind, limit: 0, filters: { signed: false } })).total;
    }
    assert.equal(signedTrue, counts.verified);
    assert.equal(signedFalse, all.length - counts.verified);
  });

  it('verifies items signed in both generations, and reports edited and foreign-key items', async () => {
    const all = await everything();
    const gen = (r) =>
      /rye:signed:\S+:([0-9a-f]+)(?: -->)?$/m.exec(
        fs.readFileSync(r.path, 'utf8').split('\n').slice(0, 2).join('\n'),
      )?.[1].length === 16
        ? 1
        : 2;
    const verified = all.filter((r) => r.integrity === 'verified');
    assert.ok(
      verified.some((r) => gen(r) === 1),
      'a v1 item verifies',
    );
    assert.ok(
      verified.some((r) => gen(r) === 2),
      'a v2 item verifies',
    );
    assert.ok(
      all.some((r) => r.integrity === 'modified'),
      'edited items are reported',
    );
    assert.ok(
      all.some((r) => r.integrity === 'untrusted'),
      'foreign-key items are reported',
    );
  });

  it('v1 and v2 trust files of the same author key give the same classification', () => {
    const load = (file) => {
      const dir = tmpdir('rye-trust-');
      fs.mkdirSync(path.join(dir, '.ai/config/keys/trusted'), { recursive: true });
      fs.copyFileSync(path.join(RYEOS, 'trusted-keys', file), path.join(dir, '.ai/config/keys/trusted', file));
      return TrustStore.load([{ label: 'user', kind: 'user', aiDir: path.join(dir, '.ai'), rank: 1 }]);
    };
    const v2file = fs.readdirSync(path.join(RYEOS, 'trusted-keys')).find((f) => f.length === 64 + 5);
    const [a, b] = [load(`${AUTHOR_V1}.toml`), load(v2file)];
    let compared = 0;
    for (const dir of ['directives', 'tools', 'knowledge']) {
      const kind = { directives: 'directive', tools: 'tool', knowledge: 'knowledge' }[dir];
      const base = path.join(RYEOS, 'system', 'ryeos-core', '.ai', dir);
      if (!fs.existsSync(base)) continue;
      for (const file of fs.readdirSync(base, { recursive: true })) {
        const full = path.join(base, file);
        if (!fs.statSync(full).isFile()) continue;
        const text = fs.readFileSync(full, 'utf8');
        const ext = path.extname(full);
        assert.equal(verifyText(text, kind, ext, a).integrity, verifyText(text, kind, ext, b).integrity, full);
        compared++;
      }
    }
    assert.ok(compared > 10);
  });

  it('finds items by words, identifiers and namespaces', async () => {
    const res = await index.search({ query: 'budget cascade', scope: 'directive' });
    assert.equal(res.results[0].id, 'test/limits/budget_cascade_test');
    const scoped = await index.search({ query: '*', scope: 'directive.test.limits.*', limit: 100 });
    assert.ok(scoped.total > 0 && scoped.results.every((r) => r.id.startsWith('test/limits/')));
  });
});
