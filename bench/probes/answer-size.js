// Size of rye_search answers as an agent's MCP client receives them, over the real RYE corpus:
// bytes of the text content and estimated tokens (bytes / 4), for realistic agent calls.
//   node bench/probes/answer-size.js
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const CLI = path.resolve(HERE, '..', '..', 'bin', 'rye-search.js');
const RYEOS = path.resolve(HERE, '..', '..', '..', 'shared', 'corpus', 'ryeos');
const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'rye-answer-size-'));
const bundles = fs
  .readdirSync(path.join(RYEOS, 'system'))
  .flatMap((id) => ['--bundle', `${id}=${path.join(RYEOS, 'system', id)}`]);
const args = [CLI, 'mcp', '--project', path.join(RYEOS, 'project'), '--user-space', path.join(cache, 'user')];
args.push('--cache-dir', cache, '--no-default-bundle', ...bundles);

const CALLS = [
  ['a question, defaults', { query: 'how do I sign a bundle' }],
  ['keywords, defaults', { query: 'thread budget' }],
  ['keywords, limit 50', { query: 'tool', limit: 50 }],
  ['listing, limit 100', { query: '*', limit: 100 }],
  ['lean: ids and scores', { query: 'tool', limit: 50, preview_chars: 0, include_fields: ['score'] }],
];

const client = new Client({ name: 'answer-size', version: '1.0.0' });
await client.connect(new StdioClientTransport({ command: process.execPath, args, stderr: 'ignore' }));
const rows = [];
for (const [call, a] of CALLS) {
  const res = await client.callTool({ name: 'rye_search', arguments: a });
  const bytes = Buffer.byteLength(res.content[0].text);
  const sc = res.structuredContent ?? {};
  rows.push({
    call,
    results: sc.results?.length,
    total: sc.total,
    bytes,
    tokens: Math.ceil(bytes / 4),
    cut: !!sc.warnings?.some((w) => w.includes('cut')),
  });
}
await client.close();
fs.rmSync(cache, { recursive: true, force: true });
console.table(rows);
