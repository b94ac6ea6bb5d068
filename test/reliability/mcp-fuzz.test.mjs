// Property test of the MCP tools through a real MCP SDK client: any `rye_search` arguments give
// an answer that keeps its size budget and paging promises, or an `isError` result carrying a
// stable code and a hint; any `rye_fetch` list of ids answers per id, in order. The server stays
// up through all of it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import fc from 'fast-check';

import { connectMcp, directive, knowledge, pyTool, sentTokens, workspace, wsArgs } from '../helpers.mjs';

const RUNS = Number(process.env.RYE_MCP_FUZZ_RUNS || 300);
const WORDS = [
  'deploy',
  'cluster',
  'backup',
  'restore',
  'archive',
  'shell',
  'session',
  'keep',
  'alive',
  'how',
  'do',
  'I',
];

function files() {
  const out = {};
  for (let i = 0; i < 45; i++) {
    const w = (k) => WORDS[(i * k + k) % WORDS.length];
    // Some long bodies, so a page of previews and metadata can outgrow a small budget.
    const body = `${w(1)} ${w(2)} ${w(3)} notes. `.repeat(i % 4 === 0 ? 400 : 3);
    if (i % 3 === 0) out[`directives/ops/d${i}.md`] = directive(`d${i}`, `${w(1)} the ${w(2)} ${w(5)}`, { body });
    else if (i % 3 === 1)
      out[`tools/ops/t${i}.py`] = pyTool({ description: `${w(3)} ${w(4)} tool`, body: `# ${body}` });
    else out[`knowledge/ops/k${i}.md`] = knowledge({ id: `ops/k${i}`, title: `${w(2)} ${w(6)} guide` }, body);
  }
  // Items with long ids: the usage hint names the first result's id, so it grows with it.
  for (let i = 0; i < 30; i++) {
    const id = `operations/runbooks/production/clusters/eu-west/runbook-${i}`;
    out[`knowledge/${id}.md`] = knowledge({ id, title: `runbook ${i}` }, 'runbook steps. '.repeat(20 + i));
  }
  return out;
}

const sometimes = (valid, hostile) => fc.oneof({ arbitrary: valid, weight: 30 }, { arbitrary: hostile, weight: 1 });

const searchArgs = fc
  .record(
    {
      query: sometimes(
        fc.oneof(
          fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 6 }).map((w) => w.join(' ')),
          fc.constantFrom('*', 'deploy*', '"keep alive"', 'backup OR restore', 'NOT shell'),
        ),
        fc.oneof(fc.string({ maxLength: 60 }), fc.constant(42), fc.constant('(')),
      ),
      scope: sometimes(
        fc.oneof(
          fc.constantFrom('directive', 'tool', 'knowledge', 'tool.ops.*'),
          fc.constant(['directive', 'knowledge']),
        ),
        fc.constantFrom('', 'bogus..x', [], 7),
      ),
      mode: sometimes(fc.constantFrom('auto', 'keyword', 'semantic', 'hybrid'), fc.constantFrom('quick', 1)),
      limit: sometimes(fc.integer({ min: 1, max: 100 }), fc.constantFrom(0, -1, 101, 2.5)),
      offset: sometimes(fc.integer({ min: 0, max: 30 }), fc.constantFrom(-1, 1e12)),
      preview_chars: sometimes(fc.constantFrom(0, 50, 200, 2000), fc.constantFrom(-5, 'x')),
      include_fields: sometimes(
        fc.subarray(['id', 'type', 'score', 'preview', 'description', 'tokens']),
        fc.constant(['nope']),
      ),
      min_score: sometimes(fc.double({ min: 0, max: 1, noNaN: true }), fc.constantFrom(3, -1)),
      facets: fc.boolean(),
      explain: fc.boolean(),
      boost_recent: sometimes(fc.constantFrom(true, '7d'), fc.constant('soon')),
      since: sometimes(fc.constantFrom('30d', '2w', '2020-01-01'), fc.constant('later')),
      like: sometimes(
        fc.constantFrom('directive:ops/d0', 'tool:ops/t1', 'knowledge:ops/k2'),
        fc.constantFrom('tool:none/x', ''),
      ),
      max_answer_tokens: sometimes(fc.integer({ min: 500, max: 20_000 }), fc.constantFrom(10, 1e9)),
      sort_by: fc.constantFrom('score', 'name', 'date'),
      bogus_argument: fc.constant(1),
    },
    { requiredKeys: [] },
  )
  .map((args) => {
    // An unknown argument is an error; keep it rare so most calls reach the search.
    if ('bogus_argument' in args && Math.abs(JSON.stringify(args).length % 7) !== 0) delete args.bogus_argument;
    return args;
  });

/** The failure document of an `isError` result: a stable code and a hint (`rye_search` nests
 * them in `error`; a `rye_fetch` failure is the flat document `fetch --json` prints). */
function checkFailure(res, what) {
  const text = res.content?.[0]?.text;
  assert.equal(typeof text, 'string', what);
  const doc = JSON.parse(text);
  const failure = typeof doc.error === 'object' ? doc.error : doc;
  assert.match(failure.code, /^E_[A-Z_]+$/, `${what}: ${text.slice(0, 200)}`);
  assert.ok(typeof failure.hint === 'string' && failure.hint.length > 0, `${what}: ${text.slice(0, 200)}`);
}

describe('MCP tool arguments (fast-check, real client)', () => {
  const ws = workspace();
  let client;
  before(async () => {
    ws.write('project', files());
    ({ client } = await connectMcp(wsArgs(ws), { name: 'mcp-fuzz' }));
  });
  after(() => ws.cleanup());

  it('rye_search: any arguments answer within the budget, page exactly, or fail with a code', async () => {
    let answered = 0;
    let failed = 0;
    await fc.assert(
      fc.asyncProperty(searchArgs, async (args) => {
        const what = JSON.stringify(args).slice(0, 240);
        const res = await client.callTool({ name: 'rye_search', arguments: args });
        if (res.isError) {
          checkFailure(res, what);
          failed++;
          return;
        }
        const answer = res.structuredContent;
        assert.ok(Array.isArray(answer.results) && Number.isInteger(answer.total), what);
        assert.match(res.content[0].text, /^\d+-\d+ of \d+ results|^0 of \d+ results/, what);
        const budget = args.max_answer_tokens ?? 8000;
        // One result is always given, however large; more must fit the budget (text and JSON).
        if (answer.results.length > 1) assert.ok(sentTokens(res) <= budget, `${sentTokens(res)} > ${budget}: ${what}`);
        if (answer.next_offset !== undefined) {
          assert.equal(answer.next_offset, answer.offset + answer.results.length, what);
          assert.ok(answer.has_more, what);
        }
        if (typeof args.limit === 'number') assert.ok(answer.results.length <= args.limit, what);
        answered++;
      }),
      { numRuns: RUNS, seed: Number(process.env.RYE_MCP_FUZZ_SEED || 20261126) },
    );
    assert.ok(answered > RUNS / 3 && failed > 0, `answered ${answered}, failed ${failed}`);
  });

  it('rye_search: a cut answer fits its budget with its warning and usage hint, at every budget', async () => {
    // The cut reserved a fixed 80 tokens for the warning and hint it adds, which take more: an
    // answer cut to several results came out a few tokens over its budget.
    for (let budget = 500; budget <= 2500; budget += 3) {
      const res = await client.callTool({
        name: 'rye_search',
        arguments: { query: 'runbook', limit: 40, max_answer_tokens: budget },
      });
      const answer = res.structuredContent;
      assert.ok(answer.results.length >= 1 && answer.warnings?.some((w) => /answer cut/.test(w)), `budget ${budget}`);
      assert.match(res.content[0].text, /warning: answer cut/);
      if (answer.results.length > 1) assert.ok(sentTokens(res) <= budget, `budget ${budget}: ${sentTokens(res)}`);
      assert.equal(answer.next_offset, answer.results.length);
    }
  });

  it('rye_fetch: any list of ids answers per id, in order', async () => {
    const ids = fc.array(
      fc.oneof(
        fc.constantFrom('ops/d0', 'ops/t1', 'ops/k2', 'ops/d3', 'ops/k5'),
        fc.constantFrom('ops/none', '', '../../etc/passwd', 'ops/d0\u0000'),
        fc.string({ maxLength: 20 }),
      ),
      { minLength: 1, maxLength: 12 },
    );
    await fc.assert(
      fc.asyncProperty(ids, fc.constantFrom(undefined, 'directive', 'tool', 'knowledge'), async (list, type) => {
        const args = { item_ids: list, ...(type ? { item_type: type } : {}) };
        const res = await client.callTool({ name: 'rye_fetch', arguments: args });
        const what = JSON.stringify(args).slice(0, 240);
        if (res.isError) {
          checkFailure(res, what);
          return;
        }
        const { items } = res.structuredContent;
        assert.equal(items.length, list.length, what);
        items.forEach((item, i) => {
          if (item.status === 'error') assert.match(item.code, /^E_[A-Z_]+$/, what);
          else assert.equal(item.item_id ?? item.id, list[i], what);
        });
      }),
      { numRuns: Math.ceil(RUNS / 3), seed: Number(process.env.RYE_MCP_FUZZ_SEED || 20261126) + 1 },
    );
    // The server is still up and answering.
    const res = await client.callTool({ name: 'rye_search', arguments: { query: 'deploy' } });
    assert.ok(!res.isError);
  });
});
