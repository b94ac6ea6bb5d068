// A hostile space (what a cloned repository can hold) never blocks, aborts or leaks: each case is
// run as a user would, through the CLI process with a timeout, or the Node API with a time bound.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

import { openIndex } from '../../dist/index.js';
import { loadParsers, parseItem } from '../../dist/metadata.js';
import { nameTooLong } from '../../dist/discovery.js';
import { CLI, directive, knowledge, pyTool, workspace, wsArgs } from '../helpers.mjs';

const hasFifo = (() => {
  try {
    execFileSync('mkfifo', ['--version'], { stdio: 'ignore' });
    return process.platform !== 'win32';
  } catch {
    return false;
  }
})();

/** The CLI with every space inside the workspace; a hang fails after `timeout` ms. */
function cli(ws, args, timeout = 30_000) {
  const res = spawnSync(process.execPath, [CLI, ...args, ...wsArgs(ws)], {
    encoding: 'utf8',
    env: { ...process.env, CI: '1', RYE_SYSTEM_BUNDLES: '', RYE_DEV_MODE: '1' },
    timeout,
  });
  assert.notEqual(res.error?.code, 'ETIMEDOUT', `rye-search ${args.join(' ')} did not finish in ${timeout} ms`);
  return res;
}

async function timedIndex(ws) {
  const started = performance.now();
  const index = await openIndex({
    projectPath: ws.project,
    userSpace: ws.user,
    cacheDir: ws.cache,
    includeDefaultBundle: false,
    watch: false,
  });
  return { index, ms: performance.now() - started };
}

describe('hostile spaces', () => {
  it('a trust file linked to /dev/zero, or a FIFO, is ignored with its reason; nothing blocks', {
    skip: !hasFifo && 'no mkfifo',
  }, () => {
    const ws = workspace();
    ws.write('project', { 'tools/fine.py': pyTool({ description: 'a fine tool' }) });
    const trusted = path.join(ws.project, '.ai', 'config', 'keys', 'trusted');
    fs.mkdirSync(trusted, { recursive: true });
    fs.symlinkSync('/dev/zero', path.join(trusted, 'zero.toml'));
    execFileSync('mkfifo', [path.join(trusted, 'fifo.toml')]);
    const search = cli(ws, ['search', 'fine', '--json']);
    assert.equal(search.status, 0, search.stderr);
    assert.equal(JSON.parse(search.stdout).results[0].id, 'fine');
    const verify = cli(ws, ['verify', '--json']);
    assert.ok([0, 1].includes(verify.status), verify.stderr);
    const fetched = cli(ws, ['fetch', 'fine', '--json'], 30_000);
    assert.ok([0, 2].includes(fetched.status), fetched.stderr);
    ws.cleanup();
  });

  it('fetch --destination onto a FIFO or a folder fails with E_EXISTS and leaves nothing behind', {
    skip: !hasFifo && 'no mkfifo',
  }, () => {
    const ws = workspace();
    ws.write('user', {
      'tools/pipe.py': pyTool({ description: 'piped' }),
      'tools/dir.py': pyTool({ description: 'dir' }),
    });
    fs.mkdirSync(path.join(ws.project, '.ai', 'tools'), { recursive: true });
    execFileSync('mkfifo', [path.join(ws.project, '.ai', 'tools', 'pipe.py')]);
    fs.mkdirSync(path.join(ws.project, '.ai', 'tools', 'dir.py'));
    for (const id of ['pipe', 'dir']) {
      const res = cli(ws, ['fetch', `tool:${id}`, '--source', 'user', '--destination', 'project', '--json'], 20_000);
      assert.equal(res.status, 2, res.stdout + res.stderr);
      assert.match(res.stdout + res.stderr, /E_EXISTS/);
      assert.doesNotMatch(res.stdout + res.stderr, /\n\s+at /, 'a stack trace was printed');
    }
    assert.deepEqual(fs.readdirSync(path.join(ws.project, '.ai', 'tools')).sort(), ['dir.py', 'pipe.py']);
    ws.cleanup();
  });

  it('a copy never creates folders outside the destination space through a link', () => {
    const ws = workspace();
    ws.write('user', { 'tools/deep/nested/x.py': pyTool({ description: 'x' }) });
    const outside = path.join(ws.root, 'outside');
    fs.mkdirSync(outside);
    fs.mkdirSync(path.join(ws.project, '.ai'), { recursive: true });
    fs.symlinkSync(outside, path.join(ws.project, '.ai', 'tools'));
    const res = cli(ws, ['fetch', 'tool:deep/nested/x', '--source', 'user', '--destination', 'project', '--json']);
    assert.equal(res.status, 2, res.stdout + res.stderr);
    assert.deepEqual(fs.readdirSync(outside), [], 'folders were created outside the space');
    ws.cleanup();
  });

  it('metadata parsers run in linear time on pathological files', async () => {
    const ws = workspace();
    const n = 20_000;
    ws.write('project', {
      'tools/blank.py': `${'\n'.repeat(36)}x = 1\n`,
      'tools/blank2.py': `${' \n'.repeat(5000)}x = 1\n`,
      'tools/versions.py': '__version__ :\n'.repeat(n),
      'tools/strings.py': '__version__ = """\n'.repeat(n),
      'knowledge/fences.md': '```yaml\n'.repeat(n),
      'knowledge/fences2.md': '```yaml\nx: 1\n'.repeat(n),
      'directives/xml.md': '```xml\n'.repeat(n),
      'directives/description.md': `<directive name="d">\n<metadata>\n${'<description>\n'.repeat(n)}`,
      'directives/meta.md': `<directive name="m">\n<metadata>${'<a '.repeat(n)}</metadata></directive>`,
      'directives/open.md': '<directive '.repeat(n),
      'directives/tags.md': `<directive name="t"><metadata><description>${'<'.repeat(n)}x</description></metadata></directive>`,
      'directives/attr.md': `<directive${' name="'.repeat(n)}>`,
      'directives/ok.md': directive('ok', 'a normal directive'),
      'knowledge/ok.md': knowledge({ name: 'ok', title: 'Normal' }, 'body'),
    });
    const { index } = await timedIndex(ws);
    // Linear, measured as growth: parsing 4× the lines costs about 4× (a quadratic parser costs
    // 16×: 10× and 20 ms leave room for the collector); the best of a few runs, so a busy
    // machine does not decide.
    await loadParsers();
    const texts = {
      'tools/versions.py': (k) => ['tool', '__version__ :\n'.repeat(k), '.py'],
      'tools/strings.py': (k) => ['tool', '__version__ = """\n'.repeat(k), '.py'],
      'knowledge/fences.md': (k) => ['knowledge', '```yaml\n'.repeat(k), '.md'],
      'knowledge/fences2.md': (k) => ['knowledge', '```yaml\nx: 1\n'.repeat(k), '.md'],
      'directives/xml.md': (k) => ['directive', '```xml\n'.repeat(k), '.md'],
      'directives/description.md': (k) => [
        'directive',
        `<directive name="d">\n<metadata>\n${'<description>\n'.repeat(k)}`,
        '.md',
      ],
      'directives/meta.md': (k) => [
        'directive',
        `<directive name="m">\n<metadata>${'<a '.repeat(k)}</metadata></directive>`,
        '.md',
      ],
      'directives/open.md': (k) => ['directive', '<directive '.repeat(k), '.md'],
      'directives/tags.md': (k) => [
        'directive',
        `<directive name="t"><metadata><description>${'<'.repeat(k)}x</description></metadata></directive>`,
        '.md',
      ],
      'directives/attr.md': (k) => ['directive', `<directive${' name="'.repeat(k)}>`, '.md'],
    };
    const cost = (make, k) => {
      const [kind, text, ext] = make(k);
      let best = Infinity;
      for (let rep = 0; rep < 5; rep++) {
        const started = performance.now();
        try {
          parseItem(kind, text, 'x', ext);
        } catch {}
        best = Math.min(best, performance.now() - started);
      }
      return best;
    };
    for (const [file, make] of Object.entries(texts)) {
      const small = cost(make, n / 4);
      const large = cost(make, n);
      assert.ok(large < 10 * small + 20, `${file}: ${n / 4} → ${n}: ${small.toFixed(2)} → ${large.toFixed(2)} ms`);
    }
    const found = {
      total:
        (await index.search({ query: 'normal', scope: 'directive' })).total +
        (await index.search({ query: 'normal', scope: 'knowledge' })).total,
    };
    assert.equal(found.total, 2);
    assert.equal((await index.search({ query: '*', scope: 'tool', limit: 10 })).total, 4);
    ws.cleanup();
  });

  it('a kind folder that is a link out of the space is not indexed', async () => {
    const ws = workspace();
    const outside = path.join(ws.root, 'outside-tools');
    fs.mkdirSync(outside, { recursive: true });
    fs.writeFileSync(path.join(outside, 'secret.py'), pyTool({ description: 'secret credentials zebra' }));
    fs.mkdirSync(path.join(ws.project, '.ai'), { recursive: true });
    fs.symlinkSync(outside, path.join(ws.project, '.ai', 'tools'));
    const { index } = await timedIndex(ws);
    assert.equal((await index.search({ query: 'zebra', scope: 'tool' })).total, 0);
    assert.ok(index.lastReport.skipped.some((s) => s.reason === 'link-outside-space' && s.path.endsWith('tools')));
    ws.cleanup();
  });

  it('a 1,500-deep directory tree is scanned in linear time', async () => {
    const ws = workspace();
    let dir = path.join(ws.project, '.ai', 'knowledge');
    for (let i = 0; i < 1500; i++) dir = path.join(dir, 'd');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'bottom.md'), 'deepest aardvark\n');
    const { index, ms } = await timedIndex(ws);
    assert.ok(ms < 10_000, `scan took ${Math.round(ms)} ms`);
    assert.equal((await index.search({ query: 'aardvark', scope: 'knowledge' })).total, 1);
    ws.cleanup();
  });

  // Linux refuses a path past 4,096 bytes before an id can reach it (the deep tree above is read
  // as unreadable); Windows long paths reach 32,767 characters. Such a file was E_LIMIT, failing
  // the whole refresh: it is now skipped with its reason, and the rest of the space indexed.
  it('an id or a path longer than the index finds again is a reason to skip, counted in bytes', () => {
    const key = (p) => `project|${p}`;
    assert.equal(nameTooLong(`${'d/'.repeat(2047)}x`, key('/p/x.md')), undefined);
    assert.match(nameTooLong(`${'d/'.repeat(2048)}x`, key('/p/x.md')), /id is 4097 bytes, more than 4096/);
    assert.match(nameTooLong('é'.repeat(2049), key('/p/x.md')), /id is 4098 bytes/);
    assert.match(nameTooLong('x', key(`/${'字'.repeat(21844)}`)), /path is 65541 bytes, more than 65530/);
    assert.equal(nameTooLong('x', key(`/${'a'.repeat(65521)}`)), undefined);
  });
});
