import { parseArgs } from 'node:util';

import {
  type FetchFailure,
  fetchFailure,
  InvalidArgumentError,
  NotFoundError,
  RyeSearchError,
  shown,
} from '../errors.js';
import type { FetchOptions, FetchResponse } from '../fetch.js';
import { MAX_ITEM_IDS, openIndex } from '../rye-index.js';
import { isKind } from '../scope.js';
import { spaceLabel } from '../spaces.js';
import { COMMON_HELP, COMMON_OPTIONS, openOptions } from './args.js';
import { printable } from './format.js';

export const FETCH_HELP = `Usage: rye-search fetch ID [ID…] [options]

Prints an item's verified content. ID is kind:id (tool:rye/core/bash/bash) or a bare id.
Several ids are fetched each on its own (at most ${MAX_ITEM_IDS}), in order; --json prints
{"items": [...]}, one response or failure document per id.
Items that are not verified are refused (set RYE_DEV_MODE=1 to load them anyway).

  --type K             directive, tool or knowledge (for a bare id found under several kinds)
  --source S           project, user, system or system:<bundle> (default: project → user → system; alias --space)
  --destination D      copy the item to project or user, keeping its nested path
  --overwrite          replace a different file at the destination
${COMMON_HELP}

Exit status: 0 fetched (every id), 1 not found (some id), 2 error (including an integrity refusal).`;

export async function fetchCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      ...COMMON_OPTIONS,
      type: { type: 'string' },
      source: { type: 'string' },
      space: { type: 'string' },
      destination: { type: 'string' },
      overwrite: { type: 'boolean' },
    },
  });
  if (values.help) {
    process.stdout.write(`${FETCH_HELP}\n`);
    return 0;
  }
  if (positionals.length === 0)
    throw new InvalidArgumentError('fetch needs an ID', {
      hint: 'e.g. rye-search fetch tool:rye/core/bash/bash',
    });
  if (values.type !== undefined && !isKind(values.type))
    throw new InvalidArgumentError(`unknown --type ${shown(values.type)}`, {
      hint: 'use directive, tool or knowledge',
    });
  const index = await openIndex({ ...openOptions(values), refresh: false });
  const one = {
    item_type: values.type as FetchOptions['item_type'],
    source: values.source,
    space: values.space,
    destination: values.destination as FetchOptions['destination'],
    overwrite: values.overwrite,
  };
  if (positionals.length > 1) {
    try {
      return printMany((await index.fetchMany({ item_ids: positionals, ...one })).items, !!values.json);
    } finally {
      await index.close();
    }
  }
  try {
    const res = await index.fetch({ item_id: positionals[0]!, ...one });
    if (values.json) process.stdout.write(`${JSON.stringify(res, null, 2)}\n`);
    else printItem(res);
    return 0;
  } catch (err) {
    // With --json every failure is the fetch failure document of the rye_fetch tool, on stdout.
    if (values.json && err instanceof RyeSearchError) {
      process.stdout.write(`${JSON.stringify(fetchFailure(err, positionals[0], values.type), null, 2)}\n`);
      return err instanceof NotFoundError ? 1 : 2;
    }
    if (err instanceof NotFoundError) {
      process.stderr.write(`${printable(err.message)}\n  hint: ${printable(err.hint)}\n`);
      return 1;
    }
    throw err;
  } finally {
    await index.close();
  }
}

function printItem(res: FetchResponse): void {
  const where = spaceLabel(res.source, res.bundle);
  process.stderr.write(
    `${printable(`# ${res.item_type}:${res.item_id} from ${where} (${res.integrity}) ${res.path}`)}\n`,
  );
  if (res.copied_to) process.stderr.write(`${printable(`# copied to ${res.copied_to}: ${res.destination_path}`)}\n`);
  if (res.warning) process.stderr.write(`${printable(`warning: ${res.warning}`)}\n`);
  process.stdout.write(res.content);
}

/** Several items: each printed (or its failure told) in order; the exit status of the worst. */
function printMany(items: (FetchResponse | FetchFailure)[], json: boolean): number {
  if (json) process.stdout.write(`${JSON.stringify({ items }, null, 2)}\n`);
  let status = 0;
  for (const item of items) {
    if (item.status === 'success') {
      if (!json) printItem(item);
      continue;
    }
    if (!json)
      process.stderr.write(`${printable(`${item.item_id}: ${item.error}`)}\n  hint: ${printable(item.hint)}\n`);
    status = Math.max(status, item.code === 'E_NOT_FOUND' ? 1 : 2);
  }
  return status;
}
