// Model-based test of incremental refresh: random sequences of file operations on a project and
// a user space (add, rewrite with the same size, grow, delete, move, add a directory, delete a
// directory), each followed by a refresh, and after every refresh the index answers exactly what
// is on disk: every item once, with its current description, none that is gone. Run with the
// directory watcher (what the MCP server uses) and without it (a walk on every refresh).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

import fc from 'fast-check';

import { openIndex } from '../../dist/index.js';
import { pyTool, workspace } from '../helpers.mjs';

const RUNS = Number(process.env.RYE_REFRESH_MODEL_RUNS || 12);
const SPACES = ['project', 'user'];

const op = fc.oneof(
  fc.record({
    kind: fc.constant('write'),
    space: fc.constantFrom(...SPACES),
    dir: fc.integer({ min: 0, max: 3 }),
    n: fc.integer({ min: 0, max: 9 }),
    grow: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant('delete'),
    space: fc.constantFrom(...SPACES),
    dir: fc.integer({ min: 0, max: 3 }),
    n: fc.integer({ min: 0, max: 9 }),
  }),
  fc.record({
    kind: fc.constant('move'),
    space: fc.constantFrom(...SPACES),
    dir: fc.integer({ min: 0, max: 3 }),
    n: fc.integer({ min: 0, max: 9 }),
    to: fc.integer({ min: 0, max: 3 }),
  }),
  fc.record({ kind: fc.constant('rmdir'), space: fc.constantFrom(...SPACES), dir: fc.integer({ min: 0, max: 3 }) }),
  // Closed, a file written while no index is open, opened again on the same cache.
  fc.record({
    kind: fc.constant('reopen'),
    space: fc.constantFrom(...SPACES),
    dir: fc.integer({ min: 0, max: 3 }),
    n: fc.integer({ min: 0, max: 9 }),
  }),
);

/** The tool file `dN/tN.py` of a space. */
const toolPath = (root, dir, n) => path.join(root, '.ai', 'tools', `d${dir}`, `t${n}.py`);

async function check(index, model, what) {
  // Every item on disk, once, with its current description; nothing else.
  const res = await index.search({ query: '*', scope: 'tool', limit: 100, preview_chars: 0, mode: 'keyword' });
  const got = res.results.map((r) => `${r.source}:${r.id}=${r.description}`).sort();
  const want = [...model].map(([k, v]) => `${k}=${v}`).sort();
  assert.deepEqual(got, want, what);
  assert.equal(res.total, model.size, what);
}

for (const watch of [true, false]) {
  describe(`incremental refresh matches the disk (${watch ? 'watched directories' : 'a walk each time'})`, () => {
    it('after every operation and refresh, the index holds exactly the files there are', async () => {
      let version = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 25 }), async (ops) => {
          const ws = workspace();
          const roots = { project: ws.project, user: ws.user };
          for (const r of Object.values(roots)) fs.mkdirSync(path.join(r, '.ai', 'tools'), { recursive: true });
          const open = () =>
            openIndex({
              projectPath: ws.project,
              userSpace: ws.user,
              cacheDir: ws.cache,
              includeDefaultBundle: false,
              watch,
            });
          let index = await open();
          /** `space:id` → description, as the files on disk say. */
          const model = new Map();
          try {
            for (const [step, o] of ops.entries()) {
              const root = roots[o.space];
              const file = toolPath(root, o.dir, o.n);
              const key = `${o.space}:d${o.dir}/t${o.n}`;
              if (o.kind === 'write' || o.kind === 'reopen') {
                if (o.kind === 'reopen') await index.close();
                // Versions of one length: a rewrite keeps the size, so only the mtime or the
                // content can tell (`grow` makes it longer instead).
                const description = `version ${String(++version).padStart(6, '0')}${o.grow ? ' grown longer' : ''}`;
                fs.mkdirSync(path.dirname(file), { recursive: true });
                fs.writeFileSync(file, pyTool({ description }));
                model.set(key, description);
                if (o.kind === 'reopen') index = await open();
              } else if (o.kind === 'delete') {
                fs.rmSync(file, { force: true });
                model.delete(key);
              } else if (o.kind === 'move') {
                const to = toolPath(root, o.to, o.n);
                if (fs.existsSync(file) && to !== file) {
                  fs.mkdirSync(path.dirname(to), { recursive: true });
                  fs.renameSync(file, to);
                  model.set(`${o.space}:d${o.to}/t${o.n}`, model.get(key));
                  model.delete(key);
                }
              } else {
                fs.rmSync(path.dirname(file), { recursive: true, force: true });
                for (const k of [...model.keys()]) if (k.startsWith(`${o.space}:d${o.dir}/`)) model.delete(k);
              }
              await index.refresh();
              await check(index, model, `step ${step} of ${JSON.stringify(ops.slice(0, step + 1))}`);
            }
          } finally {
            await index.close();
            ws.cleanup();
          }
        }),
        { numRuns: RUNS, seed: Number(process.env.RYE_REFRESH_MODEL_SEED || 20261126) },
      );
    });
  });
}
