// The MCP server under the loads a real client can make: many projects at once, lines over the
// size cap, items larger than the answer budget. A call never fails because of another call,
// the server never stops serving, and an answer stays within max_answer_tokens.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';

import { LineTransport } from '../../dist/mcp/stdio.js';
import { connectMcp, knowledge, sentTokens, spawnCli, workspace, wsArgs } from '../helpers.mjs';

const MAX_OPEN_INDEXES = 8;

/** The inodes of the directories a process watches (an open index watches its spaces). */
function watchedInodes(pid) {
  const inodes = new Set();
  for (const fd of fs.readdirSync(`/proc/${pid}/fdinfo`)) {
    let info = '';
    try {
      info = fs.readFileSync(`/proc/${pid}/fdinfo/${fd}`, 'utf8');
    } catch {
      continue; // closed meanwhile
    }
    for (const m of info.matchAll(/inotify wd:\w+ ino:(\w+)/g)) inodes.add(Number.parseInt(m[1], 16));
  }
  return inodes;
}

/** The projects whose spaces `pid` watches: those it holds an open index of. */
function watchedProjects(pid, projects) {
  const watched = watchedInodes(pid);
  return projects.filter((p) =>
    [p, path.join(p, '.ai'), path.join(p, '.ai', 'knowledge')].some((d) => watched.has(fs.statSync(d).ino)),
  );
}

describe('MCP server at its edges', () => {
  const ws = workspace();
  let client;
  let pid;
  let projects;
  before(async () => {
    ws.write('project', {
      'knowledge/huge.md': knowledge({
        name: 'huge',
        title: 'huge item',
        description: `giant ${'word '.repeat(160_000)}`,
      }),
      'knowledge/small.md': knowledge({ name: 'small', title: 'giant small item', description: 'a small one' }),
    });
    projects = Array.from({ length: 12 }, (_, i) => {
      const dir = path.join(ws.root, `p${i}`);
      fs.mkdirSync(path.join(dir, '.ai', 'knowledge'), { recursive: true });
      fs.writeFileSync(path.join(dir, '.ai', 'knowledge', 'note.md'), `note of project ${i} zebra${i}\n`);
      return dir;
    });
    let transport;
    ({ client, transport } = await connectMcp(wsArgs(ws), { name: 'edges', stderr: 'ignore' }));
    pid = transport.pid;
  });
  after(() => ws.cleanup());

  it('36 concurrent calls over 12 projects all answer, and at most 8 indexes stay open', async () => {
    const calls = Array.from({ length: 36 }, (_, k) => {
      const i = k % projects.length;
      return client.callTool({
        name: k % 4 === 3 ? 'rye_fetch' : 'rye_search',
        arguments: { query: `zebra${i}`, scope: 'knowledge', project_path: projects[i] },
      });
    });
    const answers = await Promise.all(calls);
    for (const [k, res] of answers.entries()) {
      assert.ok(!res.isError, `call ${k}: ${res.content[0].text.slice(0, 300)}`);
      assert.equal(res.structuredContent.total, 1, `call ${k}`);
    }
    // The last closes run after the answers: give them a moment.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const open = watchedProjects(pid, [ws.project, ...projects]);
    assert.ok(open.length > 0, 'the check sees open indexes');
    assert.ok(open.length <= MAX_OPEN_INDEXES, `${open.length} project indexes open: ${open.join(', ')}`);
  });

  it('an item larger than the answer budget is shortened to fit max_answer_tokens', async () => {
    for (const args of [
      { query: 'huge', max_answer_tokens: 500, preview_chars: 0 },
      { query: 'giant', max_answer_tokens: 500 },
      { query: 'giant', max_answer_tokens: 500, limit: 1, offset: 1 },
    ]) {
      const res = await client.callTool({ name: 'rye_search', arguments: { ...args, scope: 'knowledge' } });
      assert.ok(!res.isError, res.content[0].text.slice(0, 300));
      const bytes = Buffer.byteLength(res.content[0].text);
      assert.ok(bytes <= 500 * 4, `${JSON.stringify(args)}: ${bytes} bytes`);
      const body = res.structuredContent;
      assert.ok(body.results.length >= 1);
      assert.match(body.warnings.join(' '), /were cut to stay within 500 tokens|answer cut to/);
    }
  });

  it('a stdio line over the size cap gets an error with its id, and the server goes on serving', async () => {
    const child = spawnCli(['mcp', ...wsArgs(ws)]);
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
    const send = (line) => child.stdin.write(`${line}\n`);
    send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      }),
    );
    send('{"jsonrpc":"2.0","method":"notifications/initialized"}');
    const search = (id, query) =>
      JSON.stringify({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: 'rye_search', arguments: { query, scope: 'knowledge' } },
      });
    // 11 MiB of query in one line, then an ordinary call.
    send(search(7, 'x'.repeat(11 * 1024 * 1024)));
    send(search(8, 'small'));
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer to id 8; stdout: ${out.slice(0, 2000)}`)), 30_000);
      child.stdout.on('data', () => {
        if (/"id":8/.test(out)) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    const messages = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const refused = messages.find((m) => m.id === 7);
    assert.ok(refused?.error, 'the long line is answered with an error');
    assert.match(refused.error.message, /over \d+ bytes/);
    assert.equal(messages.find((m) => m.id === 8).result.structuredContent.total, 1);
    assert.equal(child.exitCode, null, 'still serving');
    child.stdin.end();
    await exited;
  });
});

/** Servers `rawServer` started: a test that fails before stopping its own must not leave it running. */
const rawServers = new Set();
after(() => {
  for (const child of rawServers) child.kill();
});

/** A server spoken to line by line, as a client with its own JSON-RPC would. */
function rawServer(args) {
  const child = spawnCli(['mcp', ...args]);
  rawServers.add(child);
  child.on('exit', () => rawServers.delete(child));
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const send = (message) => child.stdin.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`);
  send({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  // Whole lines only: the last may still be arriving.
  const messages = () =>
    out
      .slice(0, out.lastIndexOf('\n') + 1)
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
  /** Resolves once every id in `ids` is answered. */
  const answered = (ids) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`not all of ${ids} answered; stdout: ${out.slice(-2000)}`)),
        30_000,
      );
      const check = () => {
        const got = new Set(messages().map((m) => m.id));
        if (ids.every((id) => got.has(id))) {
          clearTimeout(timer);
          child.stdout.off('data', check);
          resolve(messages());
        }
      };
      child.stdout.on('data', check);
      check();
    });
  const stop = () => {
    const exited = new Promise((resolve) => child.on('exit', resolve));
    child.stdin.end();
    return exited;
  };
  return { child, send, answered, stop, stderr: () => err };
}

describe('MCP requests a client got wrong, and a client that reads slowly', () => {
  const ws = workspace();
  before(() => {
    // Forty items of a few hundred words: an answer of all of them is tens of kilobytes.
    const many = Object.fromEntries(
      Array.from({ length: 40 }, (_, i) => [
        `knowledge/many/item${i}.md`,
        knowledge({ name: `item${i}`, title: `item ${i}`, description: `words ${'many words '.repeat(100)}` }),
      ]),
    );
    ws.write('project', {
      'knowledge/small.md': knowledge({ name: 'small', title: 'giant small item', description: 'a small one' }),
      ...many,
    });
  });
  after(() => ws.cleanup());

  it('params that do not fit the method are "invalid params" (-32602), short, naming what is wrong', async () => {
    const server = rawServer(wsArgs(ws));
    const call = (id, params) => server.send({ jsonrpc: '2.0', id, method: 'tools/call', params });
    call(1, { name: 'rye_search', arguments: [1, 2] });
    call(2, { arguments: { query: 'small' } });
    server.send({ jsonrpc: '2.0', id: 3, method: 'resources/read', params: { uri: 5 } });
    server.send({ jsonrpc: '2.0', id: 4, method: 'no/such/method', params: {} });
    call(5, { name: 'rye_search', arguments: { query: 'small', scope: 'knowledge' } });
    const messages = await server.answered([1, 2, 3, 4, 5]);
    const answer = (id) => messages.find((m) => m.id === id);
    for (const [id, where] of [
      [1, /tools\/call: params\.arguments: .*array/],
      [2, /tools\/call: params\.name: /],
      [3, /resources\/read: params\.uri: .*number/],
    ]) {
      assert.equal(answer(id).error?.code, -32602, JSON.stringify(answer(id)));
      assert.match(answer(id).error.message, where);
      assert.ok(answer(id).error.message.length <= 300, answer(id).error.message);
    }
    assert.equal(answer(4).error?.code, -32601, 'an unknown method is still "method not found"');
    assert.equal(answer(5).result.structuredContent.total, 1, 'and the server answers the next call');
    await server.stop();
  });

  it('answers held up by a client that does not read are all sent, without a leak warning', async () => {
    const server = rawServer(wsArgs(ws));
    await server.answered([0]);
    // Stop reading: stdout's pipe fills, and answers wait for it to drain.
    server.child.stdout.pause();
    const ids = Array.from({ length: 40 }, (_, k) => 100 + k);
    for (const id of ids)
      server.send({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: 'rye_search', arguments: { query: 'words', scope: 'knowledge', limit: 40 } },
      });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    server.child.stdout.resume();
    const messages = await server.answered(ids);
    for (const id of ids) assert.ok(messages.find((m) => m.id === id)?.result, `answer ${id}`);
    assert.doesNotMatch(server.stderr(), /MaxListenersExceeded|memory leak/);
    await server.stop();
  });

  it('reads no more requests while its answers wait for a client that does not read them: memory stays bounded', async () => {
    // Before: every request was read and answered into stdout's buffer, the server growing by
    // ~50 MB a second for as long as the client wrote (1.3 GB after 83,000 calls, then abort).
    const server = rawServer(wsArgs(ws));
    await server.answered([0]);
    server.child.stdout.pause();
    const request = (id) =>
      `${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'rye_search', arguments: { query: 'words', limit: 40, include_fields: ['id'] } } })}\n`;
    let sent = 0;
    const started = Date.now();
    // Write until the server stops reading: its stdin's pipe fills and stays full.
    while (Date.now() - started < 20_000) {
      if (server.child.stdin.write(request(1000 + sent++))) continue;
      const drained = await Promise.race([
        new Promise((resolve) => server.child.stdin.once('drain', () => resolve(true))),
        new Promise((resolve) => setTimeout(() => resolve(false), 2000)),
      ]);
      if (!drained) break;
    }
    assert.ok(sent < 20_000, `${sent} requests were read while no answer was`);
    if (process.platform === 'linux') {
      const status = fs.readFileSync(`/proc/${server.child.pid}/status`, 'utf8');
      const rssMb = Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024;
      assert.ok(rssMb < 600, `server RSS ${rssMb} MB`);
    }
    // Once the client reads, every request is answered.
    server.child.stdout.resume();
    const ids = Array.from({ length: sent }, (_, k) => 1000 + k);
    const messages = await server.answered(ids);
    assert.equal(messages.filter((m) => m.id >= 1000).length, sent);
    await server.stop();
  });
});

describe('MCP over stdio reads at the pace it answers', () => {
  const request = (id, method = 'tools/call') => `${JSON.stringify({ jsonrpc: '2.0', id, method, params: {} })}\n`;

  it('stops reading once 64 requests are unanswered, and reads again as they are answered or cancelled', async () => {
    // Before: every request was read at once; a client writing slow searches faster than they
    // were answered grew the server by their backlog (18,000 queued wildcard searches, 390 MB
    // after 18 s, and rising). Now 9,000 such searches keep it at ~240 MB.
    const input = new PassThrough();
    const output = new PassThrough();
    const transport = new LineTransport(input, output);
    const read = [];
    transport.onmessage = (m) => read.push(m);
    await transport.start();
    input.write(Array.from({ length: 100 }, (_, i) => request(i)).join(''));
    await new Promise((resolve) => setImmediate(resolve));
    // One chunk is read whole (its requests are parsed already); then nothing more.
    assert.equal(read.length, 100);
    assert.ok(input.isPaused(), 'paused at 64 requests in flight');
    input.write(request(100));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(read.length, 100, 'nothing read while 64 or more are in flight');
    // Answers and cancellations (the SDK drops a cancelled request's answer) make room.
    for (let i = 0; i < 30; i++) await transport.send({ jsonrpc: '2.0', id: i, result: {} });
    input.write(
      `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 30 } })}\n`,
    );
    assert.ok(input.isPaused(), '70 still in flight, the cancellation unread');
    for (let i = 31; i < 38; i++) await transport.send({ jsonrpc: '2.0', id: i, result: {} });
    await new Promise((resolve) => setImmediate(resolve));
    // 63 in flight: the request that waited is read (64 again), the cancellation behind it not yet.
    assert.ok(
      read.some((m) => m.id === 100),
      'the request that waited is read',
    );
    assert.ok(input.isPaused());
    await transport.send({ jsonrpc: '2.0', id: 38, result: {} });
    await new Promise((resolve) => setImmediate(resolve));
    // 63, and the cancellation read: 62. Two more requests fill it again (without the
    // cancellation counted, the second would have waited).
    for (const id of [101, 102, 103]) input.write(request(id));
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(
      read.filter((m) => m.id > 100).map((m) => m.id),
      [101, 102],
    );
    assert.ok(input.isPaused());
    await transport.close();
  });
});

describe('MCP answers of an item copied into many bundles', () => {
  it('cut its shadows list to stay within max_answer_tokens, and say so', async () => {
    const ws = workspace();
    ws.write('project', { 'knowledge/other.md': knowledge({ name: 'other', title: 'other' }) });
    const bundles = [];
    for (let i = 0; i < 300; i++) {
      ws.write(`b${i}`, { 'knowledge/same.md': knowledge({ name: 'same', title: 'shadowword' }) });
      bundles.push('--bundle', `b${i}=${ws.bundle(`b${i}`)}`);
    }
    const { client } = await connectMcp([...wsArgs(ws), ...bundles]);
    try {
      const res = await client.callTool({
        name: 'rye_search',
        arguments: { query: 'shadowword', limit: 1, max_answer_tokens: 500 },
      });
      assert.ok(!res.isError, res.content?.[0]?.text);
      const [top] = res.structuredContent.results;
      assert.equal(top.shadows.length, 10);
      assert.equal(top.shadows[0].space, 'system:b1');
      assert.match(
        res.structuredContent.warnings.join(' '),
        /shadows lists were cut to their first 10 spaces \(the longest had 299\)/,
      );
      assert.ok(sentTokens(res) <= 500, `${sentTokens(res)} tokens`);
    } finally {
      await client.close();
      ws.cleanup();
    }
  });
});
