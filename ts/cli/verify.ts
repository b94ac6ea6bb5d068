import { parseArgs } from 'node:util';

import { openIndex } from '../rye-index.js';
import { COMMON_HELP, COMMON_OPTIONS, openOptions } from './args.js';
import { formatTable } from './format.js';

export const VERIFY_HELP = `Usage: rye-search verify [options]

Verifies the signature of every item in the project, user and system spaces against the trusted
keys in .ai/config/keys/trusted/, and lists every item that is not verified, with the reason.

${COMMON_HELP}

Exit status: 0 every item verified, 1 some are not, 2 error.`;

export async function verifyCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: COMMON_OPTIONS });
  if (values.help) {
    process.stdout.write(`${VERIFY_HELP}\n`);
    return 0;
  }
  const index = await openIndex(openOptions(values));
  try {
    const report = await index.verify();
    if (values.json) {
      process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    } else {
      const summary = Object.entries(report.counts).map(([k, n]) => `${n} ${k}`).join(', ');
      const lines = [`${report.total} items: ${summary}`];
      if (report.problems.length) {
        lines.push('', formatTable([['INTEGRITY', 'TYPE', 'SPACE', 'ID'], ...report.problems.map((p) => [p.integrity, p.type, p.space, p.id])]));
        lines.push('', ...report.problems.map((p) => `${p.path}\n  ${p.reason}`));
      }
      process.stdout.write(`${lines.join('\n')}\n`);
    }
    return report.problems.length === 0 ? 0 : 1;
  } finally {
    await index.close();
  }
}
