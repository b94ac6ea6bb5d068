// The MCP server under hostile clients: loopback only, garbage / oversized / out-of-order
// JSON-RPC gets errors and the server stays up; a bounded soak over stdio keeps memory stable.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';

import { pyTool, spawnCli, startHttpServer, workspace, connectMcp, wsArgs } from '../helpers.mjs';

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
};

describe('HTTP transport under hostile clients', () => {
  const ws = workspace();
  let server;
  let port;
  before(async () => {
    ws.write('project', { 'tools/a.py': pyTool({ description: 'alpha' }) });
    let url;
    ({ child: server, url } = await startHttpServer(wsArgs(ws)));
    port = Number(url.port);
  });
  after(() => {
    server.kill();
    ws.cleanup();
  });

  const post = (body, headers = {}, pathname = '/mcp', method = 'POST') =>
    new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          path: pathname,
          method,
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        },
        (res) => {
          let data = '';
          res.on('data', (d) => (data += d));
          res.on('end', () => resolve({ status: res.statusCode, body: data }));
        },
      );
      req.on('error', reject);
      req.end(typeof body === 'string' ? body : JSON.stringify(body));
    });

  /** A POST whose body is sent up to `start` only (`req.end(rest)` finishes it); `answered` resolves to its status. */
  const started = (start) => {
    const req = http.request({
      host: '127.0.0.1',
      port,
      path: '/mcp',
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    });
    const answered = new Promise((resolve) => {
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode);
      });
      req.on('error', () => resolve('reset'));
    });
    req.write(start);
    return { req, answered };
  };

  // The kernel's socket table says which address it listens on; other platforms have no /proc.
  it('listens on the loopback address only', {
    skip: process.platform !== 'linux' && 'reads /proc/net/tcp (Linux)',
  }, async () => {
    const listening = fs
      .readFileSync('/proc/net/tcp', 'utf8')
      .split('\n')
      .filter((l) => l.includes(`:${port.toString(16).toUpperCase().padStart(4, '0')} `) && / 0A /.test(l));
    assert.ok(listening.length > 0);
    assert.ok(
      listening.every((l) => l.trim().split(/\s+/)[1].startsWith('0100007F:')),
      listening.join('\n'),
    );
  });

  it('answers garbage, oversized and out-of-order requests with errors, and stays up', async () => {
    const cases = [
      ['{not json', 400],
      ['', 400],
      ['x'.repeat(5 * 1024 * 1024), 413],
      [
        {
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: { name: 'rye_search', arguments: { query: 'alpha', scope: 'tool' } },
        },
        null,
      ],
      [{ jsonrpc: '1.0', id: 'x', method: 42 }, null],
      [[{ jsonrpc: '2.0' }, 5, null], null],
    ];
    for (const [body, expected] of cases) {
      const res = await post(body);
      if (expected) assert.equal(res.status, expected, String(body).slice(0, 40));
      else assert.ok(res.status >= 200 && res.status < 500, `${res.status} for ${JSON.stringify(body).slice(0, 60)}`);
    }
    assert.equal((await post(INIT, {}, '/other')).status, 404);
    assert.equal((await post('', {}, '/mcp', 'GET')).status, 405);
    assert.equal((await post(INIT, { origin: 'http://evil.example' })).status, 403);
    const ok = await post(INIT);
    assert.equal(ok.status, 200);
    assert.match(ok.body, /"serverInfo"/);
  });

  it('answers at most 64 requests at once: the next is answered 503 at once, and served after', async () => {
    // Each request held its work and its answer, and nothing bounded how many ran together.
    const init = JSON.stringify(INIT);
    const open = Array.from({ length: 64 }, () => started(init.slice(0, 10)));
    let busy;
    try {
      await new Promise((resolve) => setTimeout(resolve, 500));
      busy = await post(INIT);
    } finally {
      for (const { req } of open) req.end(init.slice(10));
    }
    assert.equal(busy.status, 503);
    assert.match(busy.body, /Busy: 64 requests/);
    assert.deepEqual(new Set(await Promise.all(open.map((o) => o.answered))), new Set([200]));
    assert.equal((await post(INIT)).status, 200);
  });

  it('bounds the bodies it holds at once: past 64 MiB in flight a request is answered 503, and every byte is given back', async () => {
    // 20 bodies of 4 MiB minus one byte, each sent but for its last byte: before, all were held
    // (nothing bounded how many arrive together: 2,000 such clients would have had 8 GB).
    const body = `"${'x'.repeat(4 * 1024 * 1024 - 3)}"`;
    const open = Array.from({ length: 20 }, () => started(body.slice(0, -1)));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    for (const { req } of open) req.end(body.slice(-1));
    const statuses = await Promise.all(open.map((o) => o.answered));
    assert.ok(statuses.includes(503), statuses.join(' '));
    // The others reached the protocol (which refuses a body that is no JSON-RPC message).
    assert.ok(
      statuses.filter((s) => s !== 503).every((s) => s >= 400 && s < 500 && s !== 413),
      statuses.join(' '),
    );
    // Every body was given back: the full allowance serves again, one body at a time.
    for (let i = 0; i < 17; i++) assert.notEqual((await post(body)).status, 503);
    assert.equal((await post(INIT)).status, 200);
  });
});

describe('stdio transport under hostile clients', () => {
  it('garbage lines get parse errors; stdout carries only JSON-RPC; the server keeps answering', async () => {
    const ws = workspace();
    ws.write('project', { 'tools/a.py': pyTool({ description: 'alpha' }) });
    const child = spawnCli(['mcp', ...wsArgs(ws)]);
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    const send = (line) => child.stdin.write(`${line}\n`);
    send('this is not json');
    send('{"jsonrpc":"2.0","id":2,"method":"tools/list"}');
    send(JSON.stringify(INIT));
    send('{"jsonrpc":"2.0","method":"notifications/initialized"}');
    send(
      '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"rye_search","arguments":{"query":"alpha","scope":"tool"}}}',
    );
    send('{"jsonrpc":"2.0","id":4,"method":"no/such/method"}');
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer to id 3; stdout: ${out}`)), 20_000);
      child.stdout.on('data', () => {
        if (/"id":3/.test(out) && /"id":4/.test(out)) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    child.stdin.end();
    const lines = out.trim().split('\n');
    const messages = lines.map((l) => JSON.parse(l));
    assert.ok(messages.every((m) => m.jsonrpc === '2.0'));
    assert.ok(
      messages.some((m) => m.error && m.id === null),
      'parse error for the garbage line',
    );
    assert.equal(messages.find((m) => m.id === 3).result.structuredContent.total, 1);
    assert.ok(messages.find((m) => m.id === 4).error);
    ws.cleanup();
  });

  it("a bounded soak of 2000 tool calls keeps the server's memory stable", async () => {
    const ws = workspace();
    ws.write(
      'project',
      Object.fromEntries(
        Array.from({ length: 300 }, (_, i) => [`tools/t${i}.py`, pyTool({ description: `tool number ${i} alpha` })]),
      ),
    );
    // Without the sentence encoder: its one-time load (~100 MB) landed between the two readings
    // when the machine was busy (CI: 195 → 256 MB), read as growth. What calls leave behind is
    // what this soak measures.
    const { client, transport } = await connectMcp([...wsArgs(ws)], {
      name: 'soak',
      stderr: 'ignore',
      env: { RYE_SEARCH_ENCODER: 'off' },
    });
    const rss = () => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${transport.pid}/status`, 'utf8'))[1]) / 1024;
    const call = (i) =>
      i % 5 === 4
        ? client.callTool({ name: 'rye_fetch', arguments: { item_id: `tool:t${i % 300}` } })
        : client.callTool({
            name: 'rye_search',
            arguments: { query: i % 3 ? 'alpha' : 'tool AND number', scope: 'tool', limit: 5, offset: i % 20 },
          });
    for (let i = 0; i < 300; i++) await call(i);
    const warm = rss();
    for (let i = 300; i < 2000; i++) await call(i);
    const end = rss();
    await client.close();
    console.log(`soak: 2000 calls, server RSS ${warm.toFixed(0)} MB after 300 → ${end.toFixed(0)} MB after 2000`);
    assert.ok(end - warm < 60, `RSS grew from ${warm} to ${end} MB`);
    ws.cleanup();
  });
});
