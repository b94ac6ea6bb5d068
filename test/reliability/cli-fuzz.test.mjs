// Property test of the CLI's search flags, each case a real process: any mix of flags (hostile
// values included) exits 0 or 1 with the `--json` envelope on stdout, or 2 with one message on
// stderr — never a stack trace, never output on stdout with an error.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import fc from 'fast-check';

import { directive, knowledge, pyTool, runCli, workspace, wsArgs } from '../helpers.mjs';

const RUNS = Number(process.env.RYE_CLI_FUZZ_RUNS || 40);

const flag = (name, value) =>
  fc.option(
    value.map((v) => [name, String(v)]),
    { nil: undefined },
  );
const sometimes = (valid, hostile) => fc.oneof({ arbitrary: valid, weight: 8 }, { arbitrary: hostile, weight: 1 });

const flags = fc.tuple(
  flag('--scope', sometimes(fc.constantFrom('tool', 'directive', 'knowledge.ops.*'), fc.constantFrom('', '..', 'x.'))),
  flag('--limit', sometimes(fc.integer({ min: 0, max: 100 }), fc.constantFrom(-1, 'ten', 1e9))),
  flag('--offset', sometimes(fc.integer({ min: 0, max: 20 }), fc.constantFrom(-4, 'x'))),
  flag('--mode', sometimes(fc.constantFrom('auto', 'keyword', 'semantic', 'hybrid'), fc.constant('turbo'))),
  flag('--since', sometimes(fc.constantFrom('7d', '2020-01-01'), fc.constant('whenever'))),
  flag('--min-score', sometimes(fc.constantFrom(0, 0.3, 1), fc.constantFrom(-2, 'high'))),
  flag('--preview-chars', sometimes(fc.constantFrom(0, 40, 200), fc.constant(-1))),
  flag('--include-fields', sometimes(fc.constantFrom('id,score', 'id,title,preview'), fc.constant('id,nope'))),
  flag('--boost-recent', sometimes(fc.constantFrom('7d', '30d'), fc.constant('0x'))),
  flag('--like', sometimes(fc.constantFrom('tool:ops/t1', 'directive:ops/d0'), fc.constant('tool:none/x'))),
  flag('--sort-by', sometimes(fc.constantFrom('score', 'name', 'date'), fc.constant('size'))),
  flag('--filter', sometimes(fc.constantFrom('category=ops', 'signed=false'), fc.constant('=x'))),
  fc.option(fc.constantFrom(['--facets'], ['--explain']), { nil: undefined }),
);
const query = fc.oneof(
  fc.constantFrom('deploy', 'keep the shell alive', 'backup OR restore', '"deploy cluster"', 'deploy*'),
  fc.constantFrom('(', 'AND', '"open', ''),
);

describe('CLI search flags (fast-check, one process per case)', () => {
  const ws = workspace();
  before(() => {
    ws.write('project', {
      'directives/ops/d0.md': directive('d0', 'deploy the cluster', { category: 'ops' }),
      'tools/ops/t1.py': pyTool({ description: 'backup and restore a cluster', category: 'ops' }),
      'knowledge/ops/k2.md': knowledge({ id: 'ops/k2', title: 'keep a shell alive' }, 'use tmux'),
    });
  });
  after(() => ws.cleanup());

  it('every mix of flags exits 0/1 with the JSON envelope, or 2 with one JSON error document', async () => {
    const statuses = new Set();
    await fc.assert(
      fc.asyncProperty(query, flags, async (q, fl) => {
        const args = ['search', q, ...fl.flat().filter((x) => x !== undefined), '--json', ...wsArgs(ws)];
        const { status, stdout, stderr } = runCli(args);
        const what = JSON.stringify(args.slice(0, -wsArgs(ws).length));
        statuses.add(status);
        assert.ok([0, 1, 2].includes(status), `${what}: exit ${status}: ${stderr}`);
        assert.ok(!/\n\s+at .+:\d+:\d+/.test(stderr), `${what}: stack trace on stderr: ${stderr}`);
        if (status === 2) {
          // --json: the error is the one JSON document on stdout, nothing on stderr.
          const { error } = JSON.parse(stdout);
          assert.match(error.code, /^E_[A-Z_]+$/, `${what}: ${stdout}`);
          assert.ok(error.message.length > 0 && error.hint.length > 0, `${what}: ${stdout}`);
          assert.equal(stderr, '', `${what}: stderr with --json`);
        } else {
          const res = JSON.parse(stdout);
          assert.ok(Array.isArray(res.results), what);
          // 0 when anything matches (a page past the end included), 1 when nothing does.
          assert.equal(status, res.total > 0 ? 0 : 1, `${what}: exit status and total`);
        }
      }),
      { numRuns: RUNS, seed: Number(process.env.RYE_CLI_FUZZ_SEED || 20261126) },
    );
    assert.ok(statuses.has(0) && statuses.has(2), `exit statuses seen: ${[...statuses]}`);
  });

  it('a long number flag is refused at once (its check tried every split of the digits)', () => {
    // 100,000 digits and an `x` (an argument holds at most 128 KiB): minutes before.
    for (const value of [`${'1'.repeat(100_000)}x`, `${'1'.repeat(50_000)}.${'2'.repeat(50_000)}.`]) {
      const started = performance.now();
      const { status, stdout } = runCli(['search', 'deploy', '--min-score', value, '--json', ...wsArgs(ws)]);
      assert.equal(status, 2);
      assert.equal(JSON.parse(stdout).error.code, 'E_INVALID_ARGUMENT');
      assert.ok(performance.now() - started < 20_000);
    }
  });
});
