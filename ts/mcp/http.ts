/**
 * Streamable HTTP on 127.0.0.1 only. Requests whose Host or Origin is not local are refused
 * before they reach the protocol (DNS-rebinding protection). Stateless: a fresh protocol server
 * per request over the shared, long-lived index.
 */
import http from 'node:http';

import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

import type { McpContext } from './context.js';
import { createMcpServer } from './server.js';
import { MAX_MESSAGE_BYTES } from './stdio.js';

const LOCAL_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

function hostOf(value: string): string {
  const m = /^(\[[^\]]+\]|[^:]+)(?::\d+)?$/.exec(value.trim().toLowerCase());
  return m ? m[1]! : '';
}

function isLocalRequest(headers: http.IncomingHttpHeaders): boolean {
  const host = headers.host;
  if (!host || !LOCAL_HOSTS.has(hostOf(host))) return false;
  const origin = headers.origin;
  if (origin === undefined) return true;
  try {
    const url = new URL(origin);
    return (
      LOCAL_HOSTS.has(url.hostname.startsWith('[') ? url.hostname : url.hostname.toLowerCase()) ||
      LOCAL_HOSTS.has(`[${url.hostname}]`)
    );
  } catch {
    return false;
  }
}

function reject(res: http.ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

/**
 * Bytes of request bodies held at once, across requests: each may hold `MAX_MESSAGE_BYTES`, and
 * nothing else bounded how many arrive together (a client sending 2,000 bodies of 4 MiB slowly
 * would have had 8 GB buffered). Past it, a request is answered 503 and may be sent again.
 */
const MAX_BUFFERED_BYTES = 16 * MAX_MESSAGE_BYTES;
let buffered = 0;

class BodyRefused extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function readBody(req: http.IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let held = 0;
    let refused = false;
    const release = () => {
      buffered -= held;
      held = 0;
      chunks.length = 0;
    };
    const refuse = (err: BodyRefused) => {
      refused = true;
      release();
      reject(err);
    };
    req.on('data', (c: Buffer) => {
      if (refused) return; // drain the rest so the client gets our answer, not a reset
      if (held + c.length > MAX_MESSAGE_BYTES) return refuse(new BodyRefused(413, 'request body too large'));
      if (buffered + c.length > MAX_BUFFERED_BYTES)
        return refuse(new BodyRefused(503, 'too many requests at once: send it again shortly'));
      held += c.length;
      buffered += c.length;
      chunks.push(c);
    });
    req.on('end', () => {
      if (refused) return;
      const body = Buffer.concat(chunks);
      release();
      try {
        resolve(body.length ? JSON.parse(body.toString('utf8')) : undefined);
      } catch {
        reject(new BodyRefused(400, 'request body is not valid JSON'));
      }
    });
    // A request that ends early (a reset) gives its bytes back.
    req.on('close', release);
    req.on('error', (err) => {
      release();
      reject(err);
    });
  });
}

/** Requests answered at once, as over stdio: past it, a request is answered 503 (each held its searches' work and answer, and nothing bounded how many). */
const MAX_IN_FLIGHT = 64;

export async function serveHttp(ctx: McpContext, port: number): Promise<http.Server> {
  let inFlight = 0;
  const server = http.createServer(async (req, res) => {
    if (!isLocalRequest(req.headers)) return reject(res, 403, 'Forbidden: only local Host and Origin are accepted');
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/mcp') return reject(res, 404, 'Not found: the endpoint is /mcp');
    if (req.method !== 'POST') return reject(res, 405, 'Method not allowed: this stateless server accepts POST only');
    if (inFlight >= MAX_IN_FLIGHT) {
      res.setHeader('retry-after', '1');
      return reject(res, 503, `Busy: ${MAX_IN_FLIGHT} requests are being answered; send it again shortly`);
    }
    inFlight += 1;
    res.on('close', () => {
      inFlight -= 1;
    });
    let body: unknown;
    try {
      body = await readBody(req);
    } catch (err) {
      const status = err instanceof BodyRefused ? err.status : 400;
      res.writeHead(status, { 'content-type': 'application/json', connection: 'close' });
      return res.end(
        JSON.stringify({ jsonrpc: '2.0', error: { code: -32700, message: (err as Error).message }, id: null }),
      );
    }
    const mcp = createMcpServer(ctx);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void mcp.close();
    });
    try {
      await mcp.connect(transport);
      await transport.handleRequest(req, res, body);
    } catch (err) {
      ctx.log(`rye-search: HTTP request failed: ${(err as Error).message}`);
      if (!res.headersSent) reject(res, 500, 'Internal error');
    }
  });
  await new Promise<void>((resolve, rejectListen) => {
    server.once('error', rejectListen);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return server;
}
