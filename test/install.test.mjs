// Installs the packed package as a user would — main tarball plus the linux-x64-gnu binary
// package, into an empty project, with cargo NOT on PATH — and runs the CLI, an MCP handshake
// and the Node API from that install.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, it } from 'node:test';

import { describeIf, ROOT, tmpdir } from './helpers.mjs';

const PLATFORM = 'linux-x64-gnu';
const binary = path.join(ROOT, 'native', `rye-search.${PLATFORM}.node`);
const applicable = process.platform === 'linux' && process.arch === 'x64' && fs.existsSync(binary);

// PATH without any directory that holds cargo or rustc.
const PATH = (process.env.PATH ?? '')
  .split(path.delimiter)
  .filter((dir) => !['cargo', 'rustc'].some((tool) => fs.existsSync(path.join(dir, tool))))
  .join(path.delimiter);
const env = { ...process.env, PATH, CI: '1', npm_config_audit: 'false', npm_config_fund: 'false' };
delete env.NAPI_RS_NATIVE_LIBRARY_PATH;

describeIf(
  applicable ? false : `needs ${binary} on linux-x64 (run npm run build first)`,
  'install from packed tarballs',
  () => {
    let work;
    let project;
    let sizes;
    let installMs;
    before(() => {
      work = tmpdir('rye-install-');
      const platDir = path.join(work, 'platform');
      fs.cpSync(path.join(ROOT, 'npm', PLATFORM), platDir, { recursive: true });
      fs.copyFileSync(binary, path.join(platDir, path.basename(binary)));
      const npm = (args, cwd) =>
        execFileSync('npm', args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      const packed = (cwd) => JSON.parse(npm(['pack', '--json', '--pack-destination', work], cwd))[0];
      const main = packed(ROOT);
      const plat = packed(platDir);
      sizes = {
        main: main.size,
        mainUnpacked: main.unpackedSize,
        mainFiles: main.entryCount,
        platform: plat.size,
        platformUnpacked: plat.unpackedSize,
      };
      assert.ok(
        !main.files.some((f) => /\.node$|^test\/|^bench\/|^crates\/|target\//.test(f.path)),
        `unexpected files in the main tarball: ${main.files.map((f) => f.path).join(', ')}`,
      );
      project = path.join(work, 'app');
      fs.mkdirSync(project);
      fs.writeFileSync(
        path.join(project, 'package.json'),
        JSON.stringify({ name: 'app', version: '1.0.0', type: 'module', private: true }),
      );
      const started = performance.now();
      npm(
        ['install', '--no-audit', '--no-fund', path.join(work, main.filename), path.join(work, plat.filename)],
        project,
      );
      installMs = performance.now() - started;
    });
    after(() => fs.rmSync(work, { recursive: true, force: true }));

    const cli = (args, extra = {}) =>
      spawnSync(process.execPath, [path.join(project, 'node_modules', 'rye-search', 'bin', 'rye-search.js'), ...args], {
        cwd: project,
        env: { ...env, USER_SPACE: path.join(work, 'user'), RYE_SEARCH_CACHE_DIR: path.join(work, 'cache'), ...extra },
        encoding: 'utf8',
      });

    it('has no cargo on PATH, and the tarball holds only what users need', () => {
      assert.equal(spawnSync('cargo', ['--version'], { env }).error?.code, 'ENOENT');
      console.log(
        `tarballs: main ${sizes.main} bytes (${sizes.mainFiles} files, ${sizes.mainUnpacked} unpacked); ${PLATFORM} ${sizes.platform} bytes (${sizes.platformUnpacked} unpacked); npm install ${Math.round(installMs)} ms`,
      );
    });

    it('runs a search on the embedded bundle from the install', () => {
      const started = performance.now();
      const res = cli(['search', 'fuzzy', '--json']);
      console.log(`first search after install: ${Math.round(performance.now() - started)} ms`);
      assert.equal(res.status, 0, res.stderr);
      const env2 = JSON.parse(res.stdout);
      assert.ok(env2.results.length > 0);
      assert.ok(env2.results.every((r) => r.integrity === 'verified'));
    });

    it('answers an MCP handshake from the install', () => {
      const script = `
      import { Client } from '@modelcontextprotocol/sdk/client/index.js';
      import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
      const client = new Client({ name: 'install-test', version: '1' });
      await client.connect(new StdioClientTransport({ command: process.execPath, args: ['node_modules/rye-search/bin/rye-search.js', 'mcp'], stderr: 'ignore', env: process.env }));
      const { tools } = await client.listTools();
      const res = await client.callTool({ name: 'rye_search', arguments: { query: 'scope', scope: 'knowledge' } });
      console.log(JSON.stringify({ tools: tools.map((t) => t.name).sort(), total: res.structuredContent.total }));
      await client.close();`;
      fs.writeFileSync(path.join(project, 'handshake.mjs'), script);
      const res = spawnSync(process.execPath, ['handshake.mjs'], {
        cwd: project,
        env: { ...env, USER_SPACE: path.join(work, 'user'), RYE_SEARCH_CACHE_DIR: path.join(work, 'cache') },
        encoding: 'utf8',
      });
      assert.equal(res.status, 0, res.stderr);
      const out = JSON.parse(res.stdout.trim().split('\n').pop());
      assert.deepEqual(out.tools, ['rye_fetch', 'rye_search']);
      assert.ok(out.total > 0);
    });

    it('imports the Node API from the install', () => {
      const script = `import { createMemoryIndex, QuerySyntaxError } from 'rye-search';
      const mem = createMemoryIndex();
      await mem.add([{ id: 'a', title: 'hello world' }]);
      const r = await mem.search({ query: 'hello' });
      let code; try { await mem.search({ query: 'a AND' }); } catch (e) { code = e instanceof QuerySyntaxError && e.code; }
      console.log(JSON.stringify({ total: r.total, code }));`;
      const res = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
        cwd: project,
        env,
        encoding: 'utf8',
      });
      assert.equal(res.status, 0, res.stderr);
      assert.deepEqual(JSON.parse(res.stdout), { total: 1, code: 'E_QUERY_SYNTAX' });
    });

    it('a strict TypeScript project compiles against the installed types, which are precise', () => {
      fs.writeFileSync(
        path.join(project, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            strict: true,
            noEmit: true,
            module: 'nodenext',
            moduleResolution: 'nodenext',
            target: 'es2022',
            skipLibCheck: false,
            // No ambient Node types of the user's own: the package's declarations bring what they use.
            types: [],
          },
        }),
      );
      fs.writeFileSync(
        path.join(project, 'use.ts'),
        `import { openIndex, type Integrity, type Source, type SearchResult } from 'rye-search';
      const index = await openIndex({ projectPath: '.' });
      const res = await index.search({ query: 'x', scope: '*' });
      const r: SearchResult | undefined = res.results[0];
      const integrity: Integrity | undefined = r?.integrity;
      const source: Source | undefined = r?.source;
      // @ts-expect-error integrity is one of five values, not any string
      const wrong: SearchResult['integrity'] = 'good';
      const report = await index.verify();
      const files: string[] = report.ignoredTrustFiles.map((f) => f.file);
      console.log(integrity, source, wrong, files);
      `,
      );
      const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
      const res = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: project, env, encoding: 'utf8' });
      assert.equal(res.status, 0, res.stdout + res.stderr);
    });

    it('a CommonJS project loads the package with require, compiled from strict TypeScript and as plain JS', () => {
      // A default `npm init` project is CommonJS; TypeScript's nodenext turns its imports into require().
      const cjs = path.join(project, 'cjs');
      fs.mkdirSync(cjs, { recursive: true });
      fs.writeFileSync(
        path.join(cjs, 'package.json'),
        JSON.stringify({ name: 'cjs-app', version: '1.0.0', private: true }),
      );
      fs.writeFileSync(
        path.join(cjs, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: { strict: true, module: 'nodenext', target: 'es2022', skipLibCheck: false, types: [] },
          files: ['use.ts'],
        }),
      );
      fs.writeFileSync(
        path.join(cjs, 'use.ts'),
        `import { createMemoryIndex, QuerySyntaxError, type SearchResponse } from 'rye-search';
      async function main(): Promise<void> {
        const mem = createMemoryIndex();
        await mem.add([{ id: 'a', title: 'hello world' }]);
        const r: SearchResponse = await mem.search({ query: 'hello' });
        let code: string | undefined;
        try { await mem.search({ query: 'a AND' }); } catch (e) { code = e instanceof QuerySyntaxError ? e.code : 'other'; }
        console.log(JSON.stringify({ total: r.total, code }));
      }
      main();
      `,
      );
      const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
      const built = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: cjs, env, encoding: 'utf8' });
      assert.equal(built.status, 0, built.stdout + built.stderr);
      assert.match(fs.readFileSync(path.join(cjs, 'use.js'), 'utf8'), /require\("rye-search"\)/);
      const compiled = spawnSync(process.execPath, ['use.js'], { cwd: cjs, env, encoding: 'utf8' });
      assert.equal(compiled.status, 0, compiled.stderr);
      assert.deepEqual(JSON.parse(compiled.stdout), { total: 1, code: 'E_QUERY_SYNTAX' });
      const plain = spawnSync(
        process.execPath,
        ['-e', "const { openIndex, KINDS } = require('rye-search'); console.log(typeof openIndex, KINDS.length)"],
        { cwd: cjs, env, encoding: 'utf8' },
      );
      assert.equal(plain.status, 0, plain.stderr);
      assert.match(plain.stdout, /^function \d+$/m);
    });

    it('without a matching binary, fails with a typed error naming the platform and how to build', () => {
      fs.rmSync(path.join(project, 'node_modules', `rye-search-${PLATFORM}`), { recursive: true, force: true });
      const res = cli(['search', 'fuzzy']);
      assert.equal(res.status, 2);
      assert.match(res.stderr, /E_NATIVE_UNAVAILABLE/);
      assert.match(res.stderr, /linux-x64/);
      assert.match(res.stderr, /npm run build:native/);
      // NAPI_RS_NATIVE_LIBRARY_PATH points the loader at a built binary.
      const withPath = cli(['search', 'fuzzy'], { NAPI_RS_NATIVE_LIBRARY_PATH: binary });
      assert.equal(withPath.status, 0, withPath.stderr);
    });
  },
);
