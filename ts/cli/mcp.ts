import { parseArgs } from 'node:util';

import { McpContext } from '../mcp/context.js';
import { createMcpServer } from '../mcp/server.js';
import { LineTransport } from '../mcp/stdio.js';
import { COMMON_HELP, COMMON_OPTIONS, integerArg, openOptions } from './args.js';
import { printable } from './format.js';
import { InvalidArgumentError } from '../errors.js';

export const MCP_HELP = `Usage: rye-search mcp [options]

Serves the rye_search and rye_fetch tools over MCP: stdio by default, or Streamable HTTP on
127.0.0.1 with --http. Only protocol messages go to stdout; logs go to stderr.

  --http PORT          serve Streamable HTTP at http://127.0.0.1:PORT/mcp (0 picks a free port)
${COMMON_HELP}`;

export async function mcpCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { ...COMMON_OPTIONS, http: { type: 'string' } } });
  if (values.help) {
    process.stdout.write(`${MCP_HELP}\n`);
    return 0;
  }
  // A long-lived server: the platform's default watching makes the refresh before each call cheap.
  const { projectPath, watch: _oneShot, ...rest } = openOptions(values);
  const ctx = new McpContext({ ...rest, defaultProject: projectPath });
  if (values.http !== undefined) {
    const port = integerArg(values.http, 'http')!;
    if (port < 0 || port > 65535)
      throw new InvalidArgumentError(`--http ${port} is not a port`, { hint: 'use 0–65535' });
    // Loaded only here: the HTTP transport and its server add ~15 ms to every stdio start.
    const { serveHttp } = await import('../mcp/http.js');
    // The port first: a busy one is said at once, not after indexing.
    const server = await serveHttp(ctx, port).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EADDRINUSE' && err.code !== 'EACCES') throw err;
      throw new InvalidArgumentError(
        `port ${port} on 127.0.0.1 ${err.code === 'EADDRINUSE' ? 'is already in use' : 'is not allowed'}`,
        {
          hint: 'choose another port, or --http 0 for a free one',
        },
      );
    });
    await ctx.withIndex(undefined, async () => undefined); // build the index before the first call
    const address = server.address();
    const actual = typeof address === 'object' && address ? address.port : port;
    process.stderr.write(`rye-search MCP listening on http://127.0.0.1:${actual}/mcp\n`);
    await new Promise<void>((resolve) => {
      const stop = () => server.close(() => resolve());
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
  } else {
    await ctx.withIndex(undefined, async () => undefined); // build the index before the first call
    const server = createMcpServer(ctx);
    // Lines that are not JSON-RPC, or over the size cap, are answered with an error by the
    // transport and serving goes on; here they are only logged.
    const transport = new LineTransport();
    transport.onerror = (err: Error) => process.stderr.write(`rye-search: ${printable(err.message)}\n`);
    await server.connect(transport);
    await new Promise<void>((resolve) => {
      transport.onclose = () => resolve();
      process.stdin.once('end', () => resolve());
    });
  }
  await ctx.close();
  return 0;
}
