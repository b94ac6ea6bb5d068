#!/usr/bin/env node
// Side-by-side benchmark: every engine in its own child process, same corpus, same query mix,
// in two profiles (engines.js): `default` — what users get (previews/snippets on, documents added
// in batches of 5,000), the headline table — and `ids` (ids only, one add), a second table.
//   node bench/run.js [--tiers c10k,c60k,c1m] [--profiles default,ids] [--engines rye,fts5,…] [--reps 3] [--runs 2] [--smoke]
//   node bench/run.js --render      # only rebuild the tables from the saved JSON
// Writes bench/results/<tier>.json, bench/results/README.md (tables) and bench/results/*.svg (plots).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { CORPUS_FILE } from './corpus.js';
import { KINDS } from './queries.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const { values } = parseArgs({
  options: {
    tiers: { type: 'string' },
    engines: { type: 'string' },
    profiles: { type: 'string' },
    reps: { type: 'string' },
    runs: { type: 'string' },
    smoke: { type: 'boolean' },
    out: { type: 'string' },
    render: { type: 'boolean' },
  },
});
const smoke = !!values.smoke;
const tiers = (values.tiers ?? (smoke ? 'c10k' : 'c10k,c60k,c1m')).split(',');
const PROFILES = (values.profiles ?? 'default,ids').split(',');
/** Engines per profile: `rye-1add` (one add, previews on) only makes sense in the default one. */
const ENGINES_OF = {
  default: values.engines?.split(',') ?? ['rye', 'rye-1add', 'fts5', 'minisearch'],
  ids: (values.engines?.split(',') ?? ['rye', 'fts5', 'minisearch', 'flexsearch', 'orama']).filter(
    (e) => e !== 'rye-1add',
  ),
};
const reps = values.reps ?? (smoke ? '1' : '3');
/**
 * Processes per engine on the default path, the engines taking turns. This 2-core VM shares its
 * host: the same index answered every query ~1.8× slower through stretches of some processes
 * (coming and going within a process, no thread of ours busy meanwhile), which moved a ratio
 * between two engines' processes by as much. Each kind's latencies come from the process that
 * answered it faster (see `fastestOf`).
 */
const runs = Number(values.runs ?? (smoke ? 1 : 2));
const outDir = path.resolve(values.out ?? path.join(HERE, 'results'));
const LIMIT_MS = { c10k: 10 * 60_000, c60k: 20 * 60_000, c1m: 30 * 60_000 };

if (!fs.existsSync(CORPUS_FILE)) {
  console.error(`benchmark corpus not found at ${CORPUS_FILE}; set RYE_BENCH_CORPUS`);
  process.exit(smoke ? 0 : 2);
}

function run(script, args, limitMs) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--max-old-space-size=16384', path.join(HERE, script), ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), limitMs);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      const line = stdout.trim().split('\n').pop();
      if (code === 0 && line) return resolve(JSON.parse(line));
      // An uncaught exception ends stderr with the Node version: show the error's own line.
      const thrown = stderr.match(/^\w*Error\b.*$/m)?.[0] ?? stderr.trim().split('\n').slice(-2).join(' ');
      const why =
        signal === 'SIGKILL'
          ? `timed out after ${limitMs / 60000} min`
          : /heap out of memory|ENOMEM|Allocation failed/i.test(stderr)
            ? 'out of memory'
            : `failed (exit ${code}): ${thrown}`;
      resolve({ error: why });
    });
  });
}

/** Measures where a lower value is better, and where a higher one is (the host's load only ever slows). */
const LOWER_IS_BETTER = ['buildMs', 'settleMs', 'addOneP50Ms', 'addAtOnceMs', 'midAfterAddsP50Ms', 'openFirstMs'];
const HIGHER_IS_BETTER = ['sequentialQps', 'batchQps', 'batchLazyQps', 'batchLeanQps'];
/**
 * Searches streamed in one process (issue #64: "memory flat over 1M streamed queries"); at c1m,
 * where each takes milliseconds, fewer.
 */
const streamed = (tierName) => (smoke ? 20_000 : tierName === 'c1m' ? 100_000 : 1_000_000);

/**
 * One engine's processes as one result: each kind's latencies (p50, p99 and the p50 without a
 * preview, together) from the process whose p50 was lower, the other times and rates at their
 * best, peak RSS at its highest (memory is not slowed by load: the larger is the honest one).
 */
function fastestOf(results) {
  const ok = results.filter((r) => !r.error);
  if (ok.length <= 1) return ok[0] ?? results[0];
  const best = { ...ok[0], processes: ok.length, kinds: {} };
  for (const k of Object.keys(ok[0].kinds)) {
    const each = ok.map((r) => r.kinds[k]).filter(Boolean);
    best.kinds[k] = each.length ? each.reduce((a, b) => (b.p50 < a.p50 ? b : a)) : ok[0].kinds[k];
  }
  const values = (key) => ok.map((r) => r[key]).filter((v) => typeof v === 'number');
  for (const key of LOWER_IS_BETTER) if (values(key).length) best[key] = Math.min(...values(key));
  for (const key of HIGHER_IS_BETTER) if (values(key).length) best[key] = Math.max(...values(key));
  if (values('peakRssMb').length) best.peakRssMb = Math.max(...values('peakRssMb'));
  if (values('runPeakRssMb').length) best.runPeakRssMb = Math.max(...values('runPeakRssMb'));
  // The stream whose memory grew the most (as peak RSS: the larger is the honest one).
  const streams = ok.map((r) => r.stream).filter(Boolean);
  if (streams.length) best.stream = streams.reduce((a, b) => (streamGrowth(b) > streamGrowth(a) ? b : a));
  return best;
}

/**
 * How much a stream's resident memory grew: the highest sample of its second half over the highest
 * of its first (samples at each tenth). Answers kept by mistake grow it with the count; ~1 is flat.
 */
function streamGrowth(stream) {
  const half = Math.floor(stream.rssMb.length / 2);
  const first = Math.max(...stream.rssMb.slice(0, half));
  return first > 0 ? Math.max(...stream.rssMb.slice(half)) / first : Number.NaN;
}

const fmt = (x, d = 2) => (x === undefined || x === null ? 'n/a' : typeof x === 'number' ? x.toFixed(d) : String(x));
const ratio = (peer, ours) =>
  typeof peer === 'number' && typeof ours === 'number' && ours > 0 ? `${(peer / ours).toFixed(2)}×` : '';

function table(tierName, results, e2e, ran, title) {
  const names = Object.keys(results);
  const cell = (n, get, d, higherIsBetter) => {
    const r = results[n];
    if (r.error) return `— (${r.error})`;
    const v = get(r);
    const ours = results.rye && !results.rye.error ? get(results.rye) : undefined;
    const x = higherIsBetter ? ratio(ours, v) : ratio(v, ours);
    return n === 'rye' || v === undefined || v === null || !x ? fmt(v, d) : `${fmt(v, d)} (${x})`;
  };
  // Issue #64's targets lead (build, memory, batch and stream rates, every kind's p50); the rest follow.
  const rows = [
    ['build: adds until they return, searchable (ms)', (r) => r.buildMs, 0],
    ['then merged (ready(), ms)', (r) => r.settleMs, 0],
    ['peak RSS: build and merges (MB)', (r) => r.peakRssMb, 0],
    ['peak RSS: build, merges and the timed queries, background work included (MB)', (r) => r.runPeakRssMb, 0],
    ['batch single-term q/s (searchMany; 20k queries, 2k at c1m; ids and scores read)', (r) => r.batchQps, 0, true],
    ['batch single-term q/s, `lazy: true` (results read when asked for)', (r) => r.batchLazyQps, 0, true],
    ['batch single-term q/s, lean (ids and scores, no preview, lower-bound count)', (r) => r.batchLeanQps, 0, true],
    ['searchStream of single-term searches, default options: q/s', (r) => r.stream?.qps, 0, true],
    ['searchStream: resident memory at the first tenth → at the end (MB)', (r) => r.stream && streamRss(r.stream), 0],
    ...KINDS.map((k) => [`p50 ${k} (ms)`, (r) => r.kinds?.[k]?.p50, 3]),
    ...KINDS.map((k) => [`p99 ${k} (ms)`, (r) => r.kinds?.[k]?.p99, 3]),
    ['sequential single-term q/s', (r) => r.sequentialQps, 0, true],
    ['known-item MRR@10', (r) => r.mrr10, 3],
    ['on-disk / serialised size (MB)', (r) => r.diskMb, 1],
    ['open + first query (ms)', (r) => r.openFirstMs, 1],
    ['add one item after the build, p50 of 100 (ms)', (r) => r.addOneP50Ms, 3],
    ['100 one-item adds asked for at once, until all return (ms)', (r) => r.addAtOnceMs, 1],
    ['p50 single-mid after the adds above (ms)', (r) => r.midAfterAddsP50Ms, 3],
  ];
  const lines = [`### ${tierName} (${results.rye?.docs ?? '?'} items): ${title}`, ''];
  // Other work on the machine moves absolute times: the load shows how much there was.
  if (ran)
    lines.push(
      `Run ${ran.at}; 1-minute load average ${ran.load[0]} at the start, ${ran.load[1]} at the end (${ran.cores} cores).`,
      '',
    );
  lines.push(`| metric | ${names.join(' | ')} |`, `|---|${names.map(() => '---').join('|')}|`);
  // A row no engine measured (the adds in the ids profile, or a tier from before the row) is left out.
  const measured = rows.filter(([, get]) => names.some((n) => !results[n].error && get(results[n]) != null));
  for (const [label, get, d, higher] of measured)
    lines.push(`| ${label} | ${names.map((n) => cell(n, get, d, higher)).join(' | ')} |`);
  lines.push(
    '',
    'Ratios in parentheses: above 1× means rye-search is better on that row (times and sizes: peer ÷ rye-search; throughput: rye-search ÷ peer). For MRR the ratio is peer ÷ rye-search, so above 1× means the peer ranks better.',
  );
  if (e2e) {
    lines.push('', `End to end on a tree of ${e2e.files} files (discovery + parsing + verification + indexing):`, '');
    if (e2e.error) lines.push(`- failed: ${e2e.error}`);
    else {
      lines.push(
        `- first index: ${e2e.firstIndexMs} ms (peak RSS ${e2e.firstIndexPeakRssMb} MB); index on disk ${e2e.indexDiskMb} MB for a ${e2e.treeDiskMb} MB tree`,
      );
      lines.push(
        `- no-change refresh: ${e2e.noChangeRefreshMs} ms; one edited file visible to the next search: ${e2e.editVisibleMs} ms (watched directories; a full walk + stat of the tree: ${e2e.fullScanMs} ms)`,
      );
      lines.push(
        `- open + first query: ${e2e.openFirstQueryMs} ms; MCP server spawn → first rye_search answer: ${e2e.mcpSpawnToFirstAnswerMs} ms`,
      );
    }
  }
  return lines.join('\n');
}

function svgBars(tierName, results) {
  const names = Object.keys(results).filter((n) => !results[n].error);
  const colors = ['#1b7837', '#2166ac', '#b2182b', '#e08214', '#762a83'];
  const W = 980;
  const H = 360;
  const left = 60;
  const bottom = 90;
  const max = Math.max(
    ...names.flatMap((n) => KINDS.map((k) => Math.log10((results[n].kinds?.[k]?.p50 ?? 0.001) * 1000 + 1))),
  );
  const group = (W - left - 20) / KINDS.length;
  const bar = group / (names.length + 1);
  let svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="11">`;
  svg += `<text x="${W / 2}" y="16" text-anchor="middle" font-size="14">p50 latency per query kind, ${tierName} (µs, log scale; lower is better)</text>`;
  KINDS.forEach((k, i) => {
    names.forEach((n, j) => {
      const v = results[n].kinds?.[k]?.p50;
      if (v === undefined || v === null) return;
      const h = (Math.log10(v * 1000 + 1) / max) * (H - bottom - 30);
      svg += `<rect x="${left + i * group + j * bar}" y="${H - bottom - h}" width="${bar - 1}" height="${h}" fill="${colors[j % colors.length]}"><title>${n} ${k}: ${(v * 1000).toFixed(0)} µs</title></rect>`;
    });
    svg += `<text transform="translate(${left + i * group + group / 2},${H - bottom + 12}) rotate(35)" font-size="10">${k}</text>`;
  });
  names.forEach((n, j) => {
    svg += `<rect x="${left + j * 110}" y="${H - 22}" width="10" height="10" fill="${colors[j % colors.length]}"/><text x="${left + j * 110 + 14}" y="${H - 13}">${n}</text>`;
  });
  return `${svg}</svg>\n`;
}

function svgScaling(all) {
  const tierNames = Object.keys(all);
  const names = [...new Set(tierNames.flatMap((t) => Object.keys(all[t])))];
  const colors = ['#1b7837', '#2166ac', '#b2182b', '#e08214', '#762a83'];
  const W = 560;
  const H = 320;
  const pts = (n) =>
    tierNames.map((t, i) => [i, all[t][n]?.kinds?.['single-mid']?.p50]).filter(([, v]) => typeof v === 'number');
  const max = Math.max(...names.flatMap((n) => pts(n).map(([, v]) => Math.log10(v * 1000 + 1))), 1);
  let svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="11">`;
  svg += `<text x="${W / 2}" y="16" text-anchor="middle" font-size="14">single-term (mid df) p50 by corpus size (µs, log)</text>`;
  const x = (i) => 60 + (i * (W - 120)) / Math.max(1, tierNames.length - 1);
  const y = (v) => H - 50 - (Math.log10(v * 1000 + 1) / max) * (H - 90);
  for (const [i, t] of tierNames.entries()) svg += `<text x="${x(i)}" y="${H - 30}" text-anchor="middle">${t}</text>`;
  names.forEach((n, j) => {
    const p = pts(n);
    if (!p.length) return;
    svg += `<polyline fill="none" stroke="${colors[j % colors.length]}" stroke-width="2" points="${p.map(([i, v]) => `${x(i)},${y(v)}`).join(' ')}"/>`;
    for (const [i, v] of p)
      svg += `<circle cx="${x(i)}" cy="${y(v)}" r="3" fill="${colors[j % colors.length]}"><title>${n}: ${(v * 1000).toFixed(0)} µs</title></circle>`;
    svg += `<text x="${W - 55}" y="${40 + j * 14}" fill="${colors[j % colors.length]}">${n}</text>`;
  });
  return `${svg}</svg>\n`;
}

fs.mkdirSync(outDir, { recursive: true });
const TIER_ORDER = ['c10k', 'c60k', 'c1m'];

const PROFILE_TITLES = {
  default:
    'default path — previews on (rye-search defaults: 200-character previews, mode auto), FTS5 with `snippet()` and the fields, MiniSearch with stored fields; documents added in batches of 5,000 (`rye-1add`: one add)',
  ids: 'ids only — previews off, all documents in one add (FTS5: one transaction, then `optimize`, on disk)',
};
/** Query kinds whose preview cost has a target (issue: within 1.25× of the same query without). */
/** The kinds every engine answers by its words: `words2` is a question to rye-search's default mode. */
const KEYWORD_KINDS = KINDS.filter((k) => k !== 'words2');
const PREVIEW_KINDS = ['single-rare', 'single-mid', 'single-common', 'or2', 'phrase'];

/** What a preview costs rye-search: p50 with and without, per kind. */
function previewCost(results) {
  const rye = results.rye;
  if (!rye || rye.error || !rye.kinds) return '';
  const lines = [
    'What a preview costs rye-search (same index, same queries, timed alternately):',
    '',
    '| kind | p50 with preview (ms) | p50 without (ms) | ratio |',
    '|---|---|---|---|',
  ];
  for (const k of KINDS) {
    const r = rye.kinds[k];
    if (!r?.bareP50) continue;
    lines.push(`| ${k} | ${r.p50.toFixed(3)} | ${r.bareP50.toFixed(3)} | ${(r.p50 / r.bareP50).toFixed(2)}× |`);
  }
  return lines.join('\n');
}

/**
 * How many queries of each kind found anything, for the kinds where some found nothing: the
 * words are drawn from the whole corpus, so a tier that holds part of it lacks some, and on such
 * a kind rye-search's p50 times mostly its retry of a query that found nothing.
 */
function answeredQueries(results) {
  const names = Object.keys(results).filter((n) => !results[n].error && results[n].kinds);
  const partly = KINDS.filter((k) =>
    names.some((n) => results[n].kinds[k] && results[n].kinds[k].withHits < results[n].kinds[k].n),
  );
  if (!partly.length) return '';
  const lines = [
    'Queries that found anything, in the kinds where some found nothing: the words are drawn from the whole corpus, so a tier that holds part of it lacks some. A query of words alone or joined by AND (no quotes, OR, wildcards or fields) that finds nothing is retried by rye-search with typos allowed, which names the closest words when even that finds nothing; the peers answer at once. Where rye-search found more, the retry (or, for two plain words, meaning) found them, and its p50 on that kind times mostly the retry.',
    '',
    `| kind | ${names.join(' | ')} |`,
    `|---|${names.map(() => '---').join('|')}|`,
  ];
  for (const k of partly)
    lines.push(
      `| ${k} | ${names.map((n) => (results[n].kinds[k] ? `${results[n].kinds[k].withHits} of ${results[n].kinds[k].n}` : 'n/a')).join(' | ')} |`,
    );
  return lines.join('\n');
}

/** Batched adds against one add, per kind, from `bench/batched-adds.js`. */
function batchedAdds(batched) {
  if (!batched?.kinds) return batched?.error ? `Batched adds against one add: ${batched.error}` : '';
  const lines = [
    `Batched adds against one add (\`bench/batched-adds.js\`: both indexes in one process, the same queries timed alternately; added in ${batched.addMs.batched} vs ${batched.addMs.oneAdd} ms):`,
    '',
    '| kind | p50 batched (ms) | p50 one add (ms) | ratio |',
    '|---|---|---|---|',
  ];
  for (const r of batched.kinds)
    lines.push(`| ${r.kind} | ${r.batchedP50Ms.toFixed(3)} | ${r.oneAddP50Ms.toFixed(3)} | ${r.ratio.toFixed(2)}× |`);
  return lines.join('\n');
}

/** A stream's resident memory at its first tenth and at its end, and how many searches it ran. */
const streamRss = (stream) => `${stream.rssMb[0]} → ${stream.rssMb.at(-1)} (${stream.count} searches)`;

/** The issue's targets on the default path, each met or not, from one run (`command`). */
function targets(results, batched, tierName, command) {
  const rye = results.rye;
  if (!rye || rye.error) return '';
  const ok = (b) => (b ? 'met' : '**missed**');
  const out = [`Targets (default path${command ? `; \`${command}\`` : ''}):`, ''];
  const cost = PREVIEW_KINDS.map((k) => rye.kinds?.[k]).filter((r) => r?.bareP50);
  if (cost.length) {
    const worst = Math.max(...cost.map((r) => r.p50 / r.bareP50));
    out.push(
      `- previews within 1.25× of no preview (single, OR-2, phrase): worst ${worst.toFixed(2)}× — ${ok(worst <= 1.25)}`,
    );
  }
  // Batched against one add: from both indexes in one process, timed alternately, when measured
  // (the side-by-side columns come from separate processes, minutes apart: the machine's load
  // moved their ratio by up to 1.5× with no difference in the indexes).
  const one = results['rye-1add'];
  const slow = batched?.kinds
    ? batched.kinds.map((r) => [r.kind, r.ratio])
    : one && !one.error
      ? KINDS.filter((k) => rye.kinds?.[k] && one.kinds?.[k]).map((k) => [k, rye.kinds[k].p50 / one.kinds[k].p50])
      : [];
  if (slow.length) {
    const [k, worst] = slow.reduce((a, b) => (b[1] > a[1] ? b : a), ['', 0]);
    const how = batched?.kinds ? 'both in one process, alternately' : 'separate processes';
    out.push(`- batched adds within 1.2× of one add (${how}): worst ${worst.toFixed(2)}× (${k}) — ${ok(worst <= 1.2)}`);
  }
  // Each peer's bar: the ratio (peer p50 ÷ rye-search p50) a kind must reach.
  for (const [peer, met, label] of [
    ['fts5', (x) => x >= 2, '≥ 2× FTS5 with snippets'],
    ['minisearch', (x) => x > 1, 'faster than MiniSearch'],
  ]) {
    const r = results[peer];
    if (!r || r.error) continue;
    // A run saved before `words2` existed timed `and2` as two plain words (a question to
    // rye-search's default mode): no keyword kind either.
    const plainAnd = !rye.kinds?.words2 && rye.kinds?.and2;
    const keywordKinds = plainAnd ? KEYWORD_KINDS.filter((k) => k !== 'and2') : KEYWORD_KINDS;
    const ratios = keywordKinds
      .filter((k) => rye.kinds?.[k] && r.kinds?.[k])
      .map((k) => [k, r.kinds[k].p50 / rye.kinds[k].p50]);
    const missed = ratios.filter(([, x]) => !met(x));
    const lowest = Math.min(...ratios.map(([, x]) => x)).toFixed(2);
    out.push(
      `- every keyword kind ${label}: ${missed.length ? `missed on ${missed.map(([k, x]) => `${k} (${x.toFixed(2)}×)`).join(', ')}` : `met (lowest ${lowest}×)`}${plainAnd ? ' (two words joined by AND not timed in this run)' : ''}`,
    );
    const typed = plainAnd ? 'and2' : 'words2';
    const asked = rye.kinds?.[typed] && r.kinds?.[typed] && r.kinds[typed].p50 / rye.kinds[typed].p50;
    if (asked)
      out.push(
        `  - two plain words, as typed (rye-search's default mode answers by meaning too when fewer than 10 items hold both; no keyword kind)${plainAnd ? ", this run's and2 row (timed before and2 was joined by AND)" : ''}: ${asked.toFixed(2)}×`,
      );
    if (peer === 'fts5') {
      // Issue #64: adds in batches of 5,000 within 2× of FTS5's one transaction (3× at a million).
      const bar = tierName === 'c1m' ? 3 : 2;
      out.push(
        `- build ≤ ${bar}× FTS5's: ${rye.buildMs} vs ${r.buildMs} ms (${(rye.buildMs / r.buildMs).toFixed(2)}×) — ${ok(rye.buildMs <= bar * r.buildMs)}; peak RSS ≤ 1.5× FTS5's: ${rye.peakRssMb} vs ${r.peakRssMb} MB (${(rye.peakRssMb / r.peakRssMb).toFixed(2)}×) — ${ok(rye.peakRssMb <= 1.5 * r.peakRssMb)}`,
      );
    }
  }
  if (rye.batchQps)
    out.push(
      `- searchMany ≥ 30,000 queries/s with default options: ${rye.batchQps} — ${ok(rye.batchQps >= 30_000)}${rye.batchLazyQps ? ` (with \`lazy: true\`: ${rye.batchLazyQps})` : ''}`,
    );
  if (rye.batchLeanQps)
    out.push(
      `- searchMany ≥ 100,000 queries/s lean (ids and scores, no preview, lower-bound count): ${rye.batchLeanQps} — ${ok(rye.batchLeanQps >= 100_000)}`,
    );
  if (rye.stream) {
    const growth = streamGrowth(rye.stream);
    out.push(
      `- memory flat over ${rye.stream.count} streamed searches (searchStream, default options; resident memory, highest of the second half ÷ highest of the first, within 1.1×): ${streamRss(rye.stream)} MB, ${growth.toFixed(2)}× — ${ok(growth <= 1.1)}`,
    );
  }
  // Issue #64: a single-term search() at or below MiniSearch's p50 on rare, mid and common terms.
  const mini = results.minisearch;
  const singles = ['single-rare', 'single-mid', 'single-common'].filter((k) => rye.kinds?.[k] && mini?.kinds?.[k]);
  if (singles.length) {
    const each = singles.map((k) => [k, rye.kinds[k].p50 / mini.kinds[k].p50]);
    out.push(
      `- single-term search() p50 at or below MiniSearch's: ${each.map(([k, x]) => `${k} ${x.toFixed(2)}× its time`).join(', ')} — ${ok(each.every(([, x]) => x <= 1))}`,
    );
  }
  // Where Tantivy itself stands on the same data (measured by those probes, not in this run).
  out.push(
    '',
    "Tantivy's own floors beside these targets: `node bench/probes/build-floor.js` (a bare Tantivy build on one and two threads beside FTS5, rye-search's core alone and its Node API), `node bench/probes/build-timeline.js` (per add of a batched build: how long Tantivy's indexing thread ran, how long it ran alone while a segment was written at the commit, and its run time beside FTS5's build: the floor no overlap of the other threads can go below) and `RYE_SEARCH_ENCODER=off node bench/probes/single-latency.js` (a bare Tantivy single-term search — top 10, with the count, with stored documents, with its own snippets — beside rye-search and MiniSearch, the queries per second each of those steps leaves a batch, and Tantivy's own rate measured on every core at once, lean and as a default answer needs it, beside rye-search's `searchMany` of the same terms with default options and lean).",
  );
  return out.join('\n');
}

/** Saved results of a tier, by profile (files written before profiles existed hold `ids` runs). */
function profilesOf(saved) {
  return saved.profiles ?? (saved.engines ? { ids: saved.engines } : {});
}

/** Tables for every tier that has results in outDir (this run's and earlier ones). */
function writeReport() {
  const sections = [];
  const known = {};
  for (const t of TIER_ORDER) {
    const file = path.join(outDir, `${t}.json`);
    if (!fs.existsSync(file)) continue;
    const saved = JSON.parse(fs.readFileSync(file, 'utf8'));
    const profiles = profilesOf(saved);
    known[t] = profiles.default ?? profiles.ids;
    for (const profile of ['default', 'ids']) {
      const results = profiles[profile];
      if (!results) continue;
      const parts = [
        table(
          t,
          results,
          profile === 'default' ? saved.e2e : undefined,
          saved.ranBy?.[profile] ?? saved.ran,
          PROFILE_TITLES[profile],
        ),
      ];
      parts.push(answeredQueries(results));
      if (profile === 'default')
        parts.push(
          previewCost(results),
          batchedAdds(saved.batchedAdds),
          targets(results, saved.batchedAdds, t, saved.ranBy?.[profile]?.command),
        );
      sections.push(parts.filter(Boolean).join('\n\n'));
    }
  }
  if (Object.keys(known).length > 1) fs.writeFileSync(path.join(outDir, 'scaling.svg'), svgScaling(known));
  const header = `# Benchmark results\n\nMachine: ${process.platform}-${process.arch}, Node ${process.version}, 2 cores (shared; other work ran at the same time, so absolute numbers are noisy — compare ratios within a tier). 50 queries per kind (fixed seed), timed after the same untimed warm-up for every engine (5 queries per kind from another seed, run 10 times), each engine in its own process. Since 2026-11-28 11:48 UTC the default path runs each engine's process twice, the engines taking turns, and takes each query kind's latencies from the process that answered it faster, build time and rates at their best, peak RSS at its highest: the host this 2-core VM shares slowed whole stretches of a process ~1.8× (\`bench/run.js\`, \`fastestOf\`). The searchMany row is the best of three calls since 2026-11-28 04:20 UTC (one call before). Peers answer through their own JS APIs with the same field weights where the engine allows; "n/a" means the engine has no such query kind. rye-search runs through its public API (\`createMemoryIndex\`). Each tier has two tables: the default path (what users get: previews on, documents added in batches) first, then ids only.\n`;
  const md = `${header}\n${sections.join('\n\n')}\n`;
  fs.writeFileSync(path.join(outDir, 'README.md'), md);
  return md;
}

for (const t of values.render ? [] : tiers) {
  const file = path.join(outDir, `${t}.json`);
  // A run of one profile keeps the other's saved results.
  const saved = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : {};
  const profiles = profilesOf(saved);
  const ran = {
    at: `${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`,
    cores: os.cpus().length,
    load: [+os.loadavg()[0].toFixed(2)],
    command: ['node bench/run.js', ...process.argv.slice(2)].join(' '),
  };
  for (const profile of PROFILES) {
    const times = profile === 'default' ? runs : 1;
    const got = Object.fromEntries(ENGINES_OF[profile].map((e) => [e, []]));
    for (let i = 1; i <= times; i++)
      for (const e of ENGINES_OF[profile]) {
        process.stderr.write(`bench ${t} ${profile} ${e}${times > 1 ? ` (process ${i} of ${times})` : ''}… `);
        const result = await run('child.js', [e, t, reps, profile, String(streamed(t))], LIMIT_MS[t] ?? LIMIT_MS.c1m);
        got[e].push(result);
        process.stderr.write(`${result.error ?? 'done'}\n`);
      }
    profiles[profile] = Object.fromEntries(Object.entries(got).map(([e, results]) => [e, fastestOf(results)]));
  }
  let e2e = saved.e2e;
  let batchedAdds = saved.batchedAdds;
  if (t !== 'c1m' && PROFILES.includes('default') && !smoke) {
    process.stderr.write(`bench ${t} batched adds against one add… `);
    batchedAdds = await run('batched-adds.js', [t, '--json'], LIMIT_MS[t]);
    process.stderr.write(`${batchedAdds.error ?? 'done'}\n`);
  }
  if (t !== 'c1m' && PROFILES.includes('default')) {
    process.stderr.write(`bench ${t} end-to-end… `);
    e2e = await run('e2e.js', [t], LIMIT_MS[t]);
    process.stderr.write(`${e2e.error ?? 'done'}\n`);
  }
  ran.load.push(+os.loadavg()[0].toFixed(2));
  // When each profile's results were measured (a run of one profile keeps the other's).
  const ranBy = saved.ranBy ?? (saved.ran ? { ids: saved.ran } : {});
  for (const profile of PROFILES) ranBy[profile] = ran;
  fs.writeFileSync(file, JSON.stringify({ profiles, e2e, batchedAdds, ran, ranBy }, null, 2));
  fs.writeFileSync(path.join(outDir, `p50-${t}.svg`), svgBars(t, profiles.default ?? profiles.ids));
  writeReport();
}
const md = writeReport();
process.stdout.write(md);
