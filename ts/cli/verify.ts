import { parseArgs } from 'node:util';

import { NotFoundError } from '../errors.js';
import { openIndex, type VerifyReport } from '../rye-index.js';
import { COMMON_HELP, COMMON_OPTIONS, openOptions } from './args.js';
import { formatTable, printable } from './format.js';

export const VERIFY_HELP = `Usage: rye-search verify [ID ...] [options]

Verifies the signature of every item in the project, user and system spaces against the trusted
keys in .ai/config/keys/trusted/, and lists every item that is not verified, with the reason.
With IDs (kind:id or a bare id), verifies only those items, every copy of each.

${COMMON_HELP}

Exit status: 0 every item verified, 1 some are not (or an ID names no item), 2 error.`;

export async function verifyCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: COMMON_OPTIONS });
  if (values.help) {
    process.stdout.write(`${VERIFY_HELP}\n`);
    return 0;
  }
  const index = await openIndex(openOptions(values));
  try {
    let report: VerifyReport;
    try {
      report = await index.verify(positionals.length ? positionals : undefined);
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
      if (values.json) process.stdout.write(`${JSON.stringify({ error: err.toJSON() })}\n`);
      else process.stderr.write(`${printable(err.message)}\n  hint: ${printable(err.hint)}\n`);
      return 1;
    }
    if (values.json) {
      process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    } else {
      const summary = Object.entries(report.counts)
        .map(([k, n]) => `${n} ${k}`)
        .join(', ');
      const lines = [`${report.total} item${report.total === 1 ? '' : 's'}: ${summary}`];
      const ignored = report.ignoredTrustFiles;
      if (ignored.length) {
        lines.push(
          '',
          `${ignored.length} trust file${ignored.length === 1 ? '' : 's'} ignored (no trust comes from ${ignored.length === 1 ? 'it' : 'them'}):`,
        );
        lines.push(...ignored.map((i) => `${printable(i.file)}\n  ${printable(i.reason)}`));
      }
      if (report.problems.length) {
        lines.push(
          '',
          formatTable([
            ['INTEGRITY', 'TYPE', 'SPACE', 'ID'],
            ...report.problems.map((p) => [p.integrity, p.type, p.space, p.id]),
          ]),
        );
        lines.push('', ...report.problems.map((p) => `${printable(p.path)}\n  ${printable(p.reason)}`));
      }
      process.stdout.write(`${lines.join('\n')}\n`);
    }
    return report.problems.length === 0 ? 0 : 1;
  } finally {
    await index.close();
  }
}
