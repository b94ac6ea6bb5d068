/** rye-search command line: parse, call the API, print. Exit 0 hits / 1 no hits / 2 error. */
import { readFileSync } from 'node:fs';

import { errorPayload, RyeSearchError } from '../errors.js';
import { printable } from './format.js';

type Command = (argv: string[]) => Promise<number>;

/**
 * Each command's module is loaded when it runs: loading all of them (the MCP SDK with its schema
 * validator, the HTTP server) took ~0.1 s before a one-shot search could start.
 */
const COMMANDS: Record<string, () => Promise<Command>> = {
  search: async () => (await import('./search.js')).searchCommand,
  fetch: async () => (await import('./fetch.js')).fetchCommand,
  verify: async () => (await import('./verify.js')).verifyCommand,
  index: async () => (await import('./index-command.js')).indexCommand,
  mcp: async () => (await import('./mcp.js')).mcpCommand,
};

const HELP = `Usage: rye-search <command> [options]

Commands:
  search QUERY   search directives, tools and knowledge
  fetch ID       print one item's verified content (and copy it between spaces)
  verify         check every item's signature against the trusted keys
  index          build or refresh the index
  mcp            serve rye_search and rye_fetch over MCP (stdio, or --http PORT)

Run rye-search <command> --help for a command's options.
  --version      print the version`;

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/**
 * A reader that went away (`rye-search search x | head -1`) ends a command quietly, as a closed
 * pipe ends other tools: its answer has no one left to read it (it was a stack trace and exit 1).
 * The MCP server's transport takes the same error as its client leaving, and closes.
 */
function endQuietlyWhenStdoutCloses(): void {
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    process.stderr.write(`rye-search: cannot write to stdout: ${printable(err.message)}\n`);
    process.exit(1);
  });
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name !== 'mcp') endQuietlyWhenStdoutCloses();
  if (name === '--version' || name === '-v') {
    process.stdout.write(`${version()}\n`);
    return 0;
  }
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${HELP}\n`);
    return name ? 0 : 2;
  }
  const load = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!load) {
    process.stderr.write(`error: unknown command "${printable(name)}"\n\n${HELP}\n`);
    return 2;
  }
  const json = rest.includes('--json');
  try {
    const command = await load();
    return await command(negativeValues(rest));
  } catch (err) {
    reportError(err, json);
    return 2;
  }
}

/**
 * `--limit -1` as `--limit=-1`: Node's argument parser takes `-1` for an option and answers with
 * its own message; written this way the value reaches the option's check, which names the range.
 */
function negativeValues(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const next = argv[i + 1];
    if (/^--[a-z][\w-]*$/.test(arg) && next !== undefined && /^-\d/.test(next)) {
      out.push(`${arg}=${next}`);
      i++;
    } else out.push(arg);
  }
  return out;
}

function reportError(err: unknown, json: boolean): void {
  const { code, message, hint } = described(err);
  // With --json every outcome is one JSON document on stdout (as fetch's failure document is);
  // the exit status says which.
  if (json) process.stdout.write(`${JSON.stringify({ error: { code, message, hint } })}\n`);
  else process.stderr.write(`error [${code}]: ${printable(message)}\n${hint ? `  hint: ${printable(hint)}\n` : ''}`);
}

/** Any failure as a coded message with a hint (see `errorPayload`); argument errors are the user's. */
function described(err: unknown): { code: string; message: string; hint: string } {
  const e = err as Error & { code?: string };
  if (!(err instanceof RyeSearchError) && e?.code?.startsWith('ERR_PARSE_ARGS')) {
    return { code: 'E_INVALID_ARGUMENT', message: e.message, hint: 'run with --help to see the options' };
  }
  const { code, message, hint } = errorPayload(err);
  if (err instanceof RyeSearchError) return { code, message, hint };
  // A bug: still one coded message, the stack only when asked for.
  const stack = process.env.RYE_DEBUG ? `\n${e?.stack ?? ''}` : '';
  return { code, message: `${message}${stack}`, hint: `${hint} (RYE_DEBUG=1 shows where it happened)` };
}
