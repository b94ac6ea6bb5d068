import { parseArgs } from 'node:util';

import type { IndexReport, Progress } from '../indexer.js';
import type { SemanticStatus } from '../encoder-tier.js';
import { openIndex, type RyeIndex } from '../rye-index.js';
import { COMMON_HELP, COMMON_OPTIONS, openOptions } from './args.js';
import { printable } from './format.js';

export const INDEX_HELP = `Usage: rye-search index [options]

Builds or refreshes the persistent index of the project, user and system spaces.
Only changed files are read again. Prints what was indexed and every file skipped, with why.
Then waits until the sentence encoder has encoded every item (kept with the index: only new or
changed items are encoded again; searches meanwhile rank by the static model).
Exits 1 when the index could not be written (another process kept writing it past the wait, or
the disk refused): the warning says why; searches answer from what was last committed.

  --verbose            list every skipped file
${COMMON_HELP}`;

/** A progress line on stderr, only for people at a terminal (never in CI or with --json). */
function progressBar(enabled: boolean): ((p: Progress) => void) | undefined {
  if (!enabled) return undefined;
  let last = '';
  return ({ phase, done, total }) => {
    const width = 30;
    const filled = Math.round((done / Math.max(total, 1)) * width);
    const line =
      phase === 'reading'
        ? `reading and verifying [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}`
        : phase === 'committing'
          ? `committing ${total} changed file${total === 1 ? '' : 's'}…`
          : 'discovering files…';
    if (line === last) return;
    process.stderr.write(`\r\x1b[2K${line}`);
    last = line;
    if (phase === 'committing') process.stderr.write('\n');
  };
}

/** Waits for the sentence encoder, with a progress line at a terminal. */
async function encoded(index: RyeIndex, showProgress: boolean): Promise<SemanticStatus> {
  const timer = showProgress
    ? setInterval(() => {
        const { encoder } = index.semanticStatus();
        if (encoder.state !== 'encoding') return;
        const width = 30;
        const filled = Math.round((encoder.encoded / Math.max(encoder.total, 1)) * width);
        process.stderr.write(
          `\r\x1b[2Kencoding by meaning [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${encoder.encoded}/${encoder.total}`,
        );
      }, 250)
    : undefined;
  try {
    return await index.ready({ semantic: 'full' });
  } finally {
    if (timer) {
      clearInterval(timer);
      process.stderr.write('\r\x1b[2K');
    }
  }
}

function encoderLine({ vectors, encoder }: SemanticStatus, seconds: string): string {
  if (vectors === 'encoder')
    return `sentence encoder: ${encoder.encoded} of ${encoder.total} items encoded (${seconds} s)`;
  return `sentence encoder off (${encoder.error ?? 'not started'}): the ${vectors === 'static' ? 'static model ranks by meaning' : 'index answers by keywords only'}`;
}

function summarise(report: IndexReport, verbose: boolean): string {
  const lines = [
    `${report.items} items indexed in ${report.durationMs} ms: ${report.added} added, ${report.updated} updated, ${report.removed} removed, ${report.unchanged} unchanged`,
  ];
  const byReason = new Map<string, number>();
  for (const s of report.skipped) byReason.set(s.reason, (byReason.get(s.reason) ?? 0) + 1);
  if (report.skipped.length) {
    lines.push(
      `${report.skipped.length} skipped: ${[...byReason].map(([r, n]) => `${n} ${r}`).join(', ')}${verbose ? '' : ' (--verbose lists them)'}`,
    );
    if (verbose)
      for (const s of report.skipped)
        lines.push(printable(`  skipped ${s.reason}: ${s.path}${s.detail ? ` (${s.detail})` : ''}`));
  }
  for (const w of report.warnings) lines.push(printable(`warning: ${w.path ? `${w.path}: ` : ''}${w.message}`));
  return lines.join('\n');
}

export async function indexCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { ...COMMON_OPTIONS, verbose: { type: 'boolean' } } });
  if (values.help) {
    process.stdout.write(`${INDEX_HELP}\n`);
    return 0;
  }
  const showProgress = !values.json && !!process.stderr.isTTY && !process.env.CI;
  const index = await openIndex({ ...openOptions(values), refresh: false });
  try {
    const report = await index.refresh(progressBar(showProgress));
    const started = performance.now();
    const semantic = await encoded(index, showProgress);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    process.stdout.write(
      values.json
        ? `${JSON.stringify({ ...report, semantic, location: index.location }, null, 2)}\n`
        : `${summarise(report, !!values.verbose)}\n${encoderLine(semantic, seconds)}\n`,
    );
    // The index was not brought up to date (its warning says why): a script must not take it for done.
    return report.readOnly ? 1 : 0;
  } finally {
    await index.close();
  }
}
