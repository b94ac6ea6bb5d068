// A reader that goes away — `rye-search search … | head -1`, an MCP client that closes its end of
// the server's stdout — ends the process quietly: exit 0, no stack trace (it was an unhandled
// EPIPE: a stack trace and exit 1).
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { describe, it } from 'node:test';

import { knowledge, spawnCli, workspace, wsArgs } from '../helpers.mjs';

/** Waits for `child` to exit, failing after `ms`; its exit code, signal and stderr. */
async function ended(child, ms) {
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), ms);
  const [code, signal] = await once(child, 'exit');
  clearTimeout(timer);
  return { code, signal, stderr };
}

function project() {
  const ws = workspace();
  const files = {};
  for (let i = 0; i < 60; i++) {
    files[`knowledge/notes/n${i}.md`] = knowledge(
      { name: `n${i}`, title: `note ${i} about closing pipes` },
      'pipes '.repeat(200),
    );
  }
  ws.write('project', files);
  return ws;
}

describe('a reader that goes away', () => {
  it('a CLI answer to a closed pipe ends with exit 0 and nothing on stderr', async () => {
    const ws = project();
    for (const args of [
      ['search', 'pipes', '--limit', '60', '--json'],
      ['search', 'pipes', '--limit', '60'],
    ]) {
      const child = spawnCli([...args, ...wsArgs(ws)]);
      // The reader leaves before the answer is written.
      child.stdout.destroy();
      const { code, signal, stderr } = await ended(child, 60_000);
      assert.equal(signal, null, stderr);
      assert.equal(code, 0, stderr);
      assert.doesNotMatch(stderr, /EPIPE|Error|at /, stderr);
    }
    ws.cleanup();
  });

  it('an MCP server whose client closed its stdout closes and exits 0, with stdin still open', async () => {
    const ws = project();
    const child = spawnCli(['mcp', ...wsArgs(ws)]);
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    };
    child.stdin.write(`${JSON.stringify(init)}\n`);
    // The first answer arrives; then the client stops reading and goes.
    await once(child.stdout, 'data');
    child.stdout.destroy();
    const call = {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'rye_search', arguments: { query: 'pipes' } },
    };
    child.stdin.write(`${JSON.stringify(call)}\n`);
    const { code, signal, stderr } = await ended(child, 30_000);
    assert.equal(signal, null, `still running after its client left: ${stderr}`);
    assert.equal(code, 0, stderr);
    assert.doesNotMatch(stderr, /EPIPE|at /, stderr);
    child.stdin.destroy();
    ws.cleanup();
  });
});
