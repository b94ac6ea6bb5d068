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

function readBody(req: http.IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (tooLarge) return; // drain the rest so the client gets our answer, not a reset
      if (size > MAX_MESSAGE_BYTES) {
        tooLarge = true;
        chunks.length = 0;
        reject(new Error('request body too large'));
      } else chunks.push(c);
    });
    req.on('end', () => {
      try {
        resolve(chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined);
      } catch {
        reject(new SyntaxError('request body is not valid JSON'));
      }
    });
    req.on('error', reject);
  });
}

export async function serveHttp(ctx: McpContext, port: number): Promise<http.Server> {
  const server = http.createServer(async (req, res) => {
    if (!isLocalRequest(req.headers)) return reject(res, 403, 'Forbidden: only local Host and Origin are accepted');
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/mcp') return reject(res, 404, 'Not found: the endpoint is /mcp');
    if (req.method !== 'POST') return reject(res, 405, 'Method not allowed: this stateless server accepts POST only');
    let body: unknown;
    try {
      body = await readBody(req);
    } catch (err) {
      const tooLarge = (err as Error).message.includes('too large');
      res.writeHead(tooLarge ? 413 : 400, { 'content-type': 'application/json', connection: 'close' });
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
