// Hostile files in a space: indexing completes, every skip has a reason, nothing is executed,
// and links never lead out of a space.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

import { openIndex } from '../../dist/index.js';
import { readFiles } from '../../dist/read-file.js';
import { pyTool, runCli, workspace, wsArgs, wsOptions } from '../helpers.mjs';

describe('hostile items', () => {
  it('binary, invalid UTF-8, 50 MB, YAML bombs, ---js, deep XML, FIFOs, links', async (t) => {
    const ws = workspace();
    const marker = path.join(ws.root, 'executed');
    const bomb = [
      'a: &a ["x","x","x","x","x","x","x","x","x"]',
      ...Array.from(
        { length: 9 },
        (_, i) =>
          `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)}]`,
      ),
    ].join('\n');
    ws.write('project', {
      'tools/binary.py': Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 1, 2]),
      'tools/latin1.py': Buffer.from('# caf\xe9\n', 'latin1'),
      'knowledge/bomb.yaml': bomb,
      'knowledge/bomb-fenced.md': `\`\`\`yaml\n${bomb}\n\`\`\`\nbody with aardvark\n`,
      'knowledge/js.md': `---js\nrequire('fs').writeFileSync(${JSON.stringify(marker)}, 'x')\n---\nbody\n`,
      'knowledge/javascript.md': `---javascript\n(() => { require('fs').writeFileSync(${JSON.stringify(marker)}, 'x'); return {} })()\n---\nbody\n`,
      'directives/deep.md': `\`\`\`xml\n<directive name="deep">${'<a>'.repeat(50_000)}x${'</a>'.repeat(50_000)}</directive>\n\`\`\`\n`,
      'tools/fine.py': pyTool({ description: 'a fine tool' }),
    });
    fs.writeFileSync(path.join(ws.project, '.ai', 'tools', 'huge.py'), Buffer.alloc(50 * 1024 * 1024, 0x61));
    fs.mkdirSync(path.join(ws.root, 'outside'));
    fs.writeFileSync(path.join(ws.root, 'outside', 'secret.py'), pyTool({ description: 'outside secret' }));
    let links = true;
    try {
      fs.symlinkSync(path.join(ws.root, 'outside'), path.join(ws.project, '.ai', 'tools', 'outdir'));
      fs.symlinkSync(path.join(ws.root, 'outside', 'secret.py'), path.join(ws.project, '.ai', 'tools', 'outfile.py'));
      fs.symlinkSync('.', path.join(ws.project, '.ai', 'tools', 'self'));
      fs.symlinkSync('missing-target', path.join(ws.project, '.ai', 'tools', 'dangling.py'));
    } catch {
      links = false;
    }
    try {
      execFileSync('mkfifo', [path.join(ws.project, '.ai', 'tools', 'pipe.py')]);
    } catch {
      /* no mkfifo here */
    }
    const started = performance.now();
    const index = await openIndex({
      projectPath: ws.project,
      userSpace: ws.user,
      cacheDir: ws.cache,
      includeDefaultBundle: false,
    });
    const took = performance.now() - started;
    assert.ok(took < 20_000, `indexing took ${took} ms`);
    assert.equal(fs.existsSync(marker), false, 'front matter was executed');
    const reasons = Object.fromEntries(index.lastReport.skipped.map((s) => [path.basename(s.path), s.reason]));
    assert.equal(reasons['binary.py'], 'binary');
    assert.equal(reasons['latin1.py'], 'not-utf8');
    assert.equal(reasons['huge.py'], 'too-large');
    if (links) {
      assert.equal(reasons.outdir, 'link-outside-space');
      assert.equal(reasons['outfile.py'], 'link-outside-space');
      assert.equal(reasons.self, 'link-loop');
      assert.equal(reasons['dangling.py'], 'unreadable');
    }
    if (fs.existsSync(path.join(ws.project, '.ai', 'tools', 'pipe.py'))) assert.equal(reasons['pipe.py'], 'not-a-file');
    assert.ok(index.lastReport.skipped.every((s) => s.reason && s.path));
    const warnings = index.lastReport.warnings.map((w) => `${path.basename(w.path)}: ${w.message}`).join('\n');
    assert.match(warnings, /bomb\.yaml: .*(alias|Alias)/);
    assert.match(warnings, /js\.md: .*not supported/);
    const tools = (await index.search({ query: '*', scope: 'tool', limit: 50 })).results.map((r) => r.id);
    assert.deepEqual(tools, ['fine']);
    assert.equal((await index.search({ query: 'secret', scope: 'tool' })).total, 0);
    assert.equal((await index.search({ query: 'aardvark', scope: 'knowledge' })).total, 1);
    assert.equal((await index.search({ query: 'deep', scope: 'directive' })).total, 1);
    console.log(
      `hostile items: ${index.lastReport.skipped.length} skipped with reasons, ${index.lastReport.warnings.length} warnings, indexed in ${Math.round(took)} ms`,
    );
    t.diagnostic(JSON.stringify(reasons));
    ws.cleanup();
  });

  it('YAML of a megabyte: metadata read from its first 16,384 structure marks, in bounded time, without warnings on stderr', async () => {
    const ws = workspace();
    ws.write('project', {
      // One error after another (an error object each): ~15 s a megabyte on the JS thread before.
      'knowledge/errors.yaml': '}\n'.repeat(480_000),
      'knowledge/one-line.yaml': '*}'.repeat(480_000),
      'tools/settings.yaml': `name: big-settings\ndescription: a megabyte of settings\n${'k: v\n'.repeat(190_000)}`,
      'knowledge/fronted.md': `---\nname: fronted\ndescription: long front matter\n${'k: v\n'.repeat(190_000)}---\nbody with zebrafish\n`,
      // An unknown tag is a warning of the YAML parser's: it went to the process's warnings.
      'knowledge/tagged.yaml': 'name: tagged\ndescription: custom tags\nx: !custom y\n',
      'knowledge/long-line.yaml': `name: long-line\ndescription: giant ${'word '.repeat(160_000)}\n`,
    });
    const started = performance.now();
    const index = await openIndex(wsOptions(ws));
    const took = performance.now() - started;
    assert.ok(took < 10_000, `indexing took ${Math.round(took)} ms`);
    const warnings = Object.fromEntries(index.lastReport.warnings.map((w) => [path.basename(w.path), w.message]));
    assert.match(warnings['errors.yaml'], /metadata could not be read/);
    assert.match(warnings['one-line.yaml'], /no top-level line within its first 16384 structure marks/);
    assert.match(warnings['settings.yaml'], /metadata read from the first \d+ characters of its YAML/);
    assert.match(warnings['fronted.md'], /metadata read from the first \d+ characters of its YAML/);
    // A long value on one line costs the parser little: it is read whole.
    assert.equal(warnings['long-line.yaml'], undefined);
    assert.equal(warnings['tagged.yaml'], undefined);
    const settings = (await index.search({ query: 'settings', scope: 'tool' })).results[0];
    assert.equal(settings?.title, 'big-settings');
    assert.equal(settings?.description, 'a megabyte of settings');
    const fronted = (await index.search({ query: 'zebrafish', scope: 'knowledge' })).results[0];
    assert.equal(fronted?.description, 'long front matter');
    assert.equal((await index.search({ query: 'tagged', scope: 'knowledge' })).results[0]?.description, 'custom tags');
    const longLine = (await index.search({ query: 'long-line', scope: 'knowledge' })).results[0];
    assert.ok(longLine?.description.startsWith('giant word'));
    await index.close();
    // A fresh cache: the CLI reads every file again.
    const args = [
      'index',
      ...wsArgs(ws).slice(0, -3),
      '--cache-dir',
      path.join(ws.root, 'cache-cli'),
      '--no-default-bundle',
    ];
    const cli = runCli(args, { env: { RYE_SEARCH_ENCODER: 'off' } });
    assert.equal(cli.status, 0, cli.stderr);
    assert.doesNotMatch(cli.stderr, /YAMLWarning|Unresolved tag/);
    ws.cleanup();
  });

  // Before, this held the JS thread past any timeout the runner could set (killed after 15 min).
  it('signature lines and directives of a megabyte are checked in linear time', async () => {
    const ws = workspace();
    const v1 = `2024-01-01T00:00:00Z:${'0'.repeat(64)}:${'A'.repeat(86)}==:${'0'.repeat(16)}`;
    ws.write('project', {
      // A v1 signature line, then a megabyte of tabs and no line break: what the signature leaves
      // out of a knowledge item was found by a pattern that tried every split of the line (hours).
      'knowledge/tabs.yaml': `# rye:signed:${v1}${'\t'.repeat(900_000)}`,
      // `<directive` over and over, no `>`: the directive a v1 signature covers was looked for
      // again from each one (minutes).
      'directives/openers.md': `<!-- rye:signed:${v1} -->\n${'<directive'.repeat(90_000)}`,
    });
    const started = performance.now();
    const index = await openIndex(wsOptions(ws, { encode: false }));
    const took = performance.now() - started;
    assert.ok(took < 20_000, `indexing took ${Math.round(took)} ms`);
    const items = (await index.search({ query: '*', limit: 10 })).results;
    assert.deepEqual(items.map((r) => r.id).sort(), ['openers', 'tabs']);
    for (const item of items) assert.notEqual(item.integrity, 'verified');
    await index.close();
    ws.cleanup();
  });

  it('files vanishing during a refresh are reported, and the refresh completes', async () => {
    const ws = workspace();
    const files = Object.fromEntries(
      Array.from({ length: 3000 }, (_, i) => [`knowledge/v/f${i}.md`, `word${i} vanishing test\n`]),
    );
    ws.write('project', files);
    const index = await openIndex({
      projectPath: ws.project,
      userSpace: ws.user,
      cacheDir: ws.cache,
      includeDefaultBundle: false,
      refresh: false,
    });
    const dir = path.join(ws.project, '.ai', 'knowledge', 'v');
    // Delete every other file while the refresh runs.
    const deleting = (async () => {
      for (let i = 0; i < 3000; i += 2) {
        fs.rmSync(path.join(dir, `f${i}.md`), { force: true });
        if (i % 100 === 0) await new Promise((r) => setImmediate(r));
      }
    })();
    const report = await index.refresh();
    await deleting;
    const gone = report.skipped.filter((s) => s.reason === 'unreadable');
    const vanished = gone.length;
    // Every file is indexed, reported as vanished, or was deleted before the scan saw it.
    assert.ok(report.items >= 1500 && report.items + vanished <= 3000);
    assert.ok(
      gone.every((s) => Number(/f(\d+)\.md$/.exec(s.path)[1]) % 2 === 0),
      'only deleted files are reported gone',
    );
    const after = await index.refresh();
    assert.equal(after.items, 1500);
    assert.equal((await index.search({ query: '*', scope: 'knowledge', limit: 0 })).total, 1500);
    console.log(
      `vanishing files: first refresh indexed ${report.items}, reported ${vanished} vanished; second refresh settled at ${after.items}`,
    );
    ws.cleanup();
  });

  it('files swapped after the scan: a FIFO or a device is refused at once, never read or waited on', {
    skip: process.platform === 'win32' && 'FIFOs are a POSIX test',
  }, async () => {
    const ws = workspace();
    const dir = path.join(ws.root, 'swapped');
    fs.mkdirSync(dir);
    const file = (name, body) => {
      fs.writeFileSync(path.join(dir, name), body);
      return path.join(dir, name);
    };
    const fifo = path.join(dir, 'fifo.md');
    execFileSync('mkfifo', [fifo]);
    const paths = [
      file('ok.md', 'hello'),
      fifo,
      '/dev/zero',
      dir,
      path.join(dir, 'missing.md'),
      file('cap.md', 'x'.repeat(64)),
      file('over.md', 'x'.repeat(65)),
    ];
    const started = Date.now();
    const read = await readFiles(paths, 64);
    assert.ok(Date.now() - started < 5000, 'no read waits on a FIFO or reads a device');
    assert.equal(read[0].bytes.toString(), 'hello');
    assert.deepEqual(read.slice(1, 4), [{ notRegular: true }, { notRegular: true }, { notRegular: true }]);
    assert.equal(read[4].code, 'ENOENT');
    assert.match(read[4].message, /No such file/);
    assert.equal(read[5].bytes.length, 64, 'a file of exactly the cap is read');
    assert.deepEqual(read[6], { tooLarge: 65 });
    ws.cleanup();
  });

  it('verify after an indexed item was swapped for a FIFO answers at once and reports the rest', {
    skip: process.platform === 'win32' && 'FIFOs are a POSIX test',
    timeout: 30_000,
  }, async () => {
    const ws = workspace();
    ws.write('project', { 'knowledge/a.md': 'alpha\n', 'knowledge/b.md': 'beta\n' });
    const index = await openIndex({
      projectPath: ws.project,
      userSpace: ws.user,
      cacheDir: ws.cache,
      includeDefaultBundle: false,
      watch: false,
    });
    const swapped = path.join(ws.project, '.ai', 'knowledge', 'a.md');
    fs.rmSync(swapped);
    execFileSync('mkfifo', [swapped]);
    const report = await index.verify();
    assert.equal(report.total, 1, 'the FIFO is left out, the other item verified');
    assert.equal(report.problems[0].id, 'b');
    await index.close();
    ws.cleanup();
  });
});
