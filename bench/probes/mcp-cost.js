// What an agent pays for rye-search over MCP, as a real client receives it (the SDK's stdio
// client, the real RYE corpus): the tool surface (`tools/list`: both tools, schemas included) and
// answers to realistic calls, in characters and estimated tokens (UTF-8 bytes / 4, the rule the
// server's budget uses). For an answer, `text` is the text block (what clients put before the
// model), `link` its resource links (one per result, which a client may attach), `structured` the
// structuredContent JSON (for programs), `sent` all of it as JSON.
//   node bench/probes/mcp-cost.js [--json]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const CLI = path.resolve(HERE, '..', '..', 'bin', 'rye-search.js');
const RYEOS = path.resolve(HERE, '..', '..', '..', 'shared', 'corpus', 'ryeos');
const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'rye-mcp-cost-'));
const bundles = fs
  .readdirSync(path.join(RYEOS, 'system'))
  .flatMap((id) => ['--bundle', `${id}=${path.join(RYEOS, 'system', id)}`]);
// The author's keys trusted in the user space, as a user of these items would have them.
const trusted = path.join(cache, 'user', '.ai', 'config', 'keys', 'trusted');
fs.mkdirSync(trusted, { recursive: true });
for (const f of fs.readdirSync(path.join(RYEOS, 'trusted-keys'))) fs.copyFileSync(path.join(RYEOS, 'trusted-keys', f), path.join(trusted, f));
const args = [CLI, 'mcp', '--project', path.join(RYEOS, 'project'), '--user-space', path.join(cache, 'user')];
args.push('--cache-dir', cache, '--no-default-bundle', ...bundles);

const CALLS = [
  ['rye_search', 'a question, defaults', { query: 'how do I sign a bundle' }],
  ['rye_search', 'keywords, defaults', { query: 'thread budget' }],
  ['rye_search', 'lean: ids and scores, limit 10', { query: 'tool', preview_chars: 0, include_fields: ['score'] }],
  ['rye_search', 'keywords, limit 50', { query: 'tool', limit: 50 }],
  ['rye_search', 'listing, limit 100', { query: '*', limit: 100 }],
  ['rye_fetch', 'one item', { item_id: 'directive:rye/primary/sign' }],
];

const chars = (s) => s.length;
const tokens = (s) => Math.ceil(Buffer.byteLength(s) / 4);

const client = new Client({ name: 'mcp-cost', version: '1.0.0' });
await client.connect(new StdioClientTransport({ command: process.execPath, args, stderr: 'ignore' }));

const { tools } = await client.listTools();
const surface = tools.map((t) => ({
  tool: t.name,
  chars: chars(JSON.stringify(t)),
  description: chars(t.description ?? ''),
  input: chars(JSON.stringify(t.inputSchema)),
  output: chars(JSON.stringify(t.outputSchema ?? {})),
}));
const listed = JSON.stringify({ tools });
surface.push({ tool: 'tools/list (all)', chars: chars(listed), description: undefined, input: undefined, output: undefined });

const answers = [];
for (const [tool, call, a] of CALLS) {
  const res = await client.callTool({ name: tool, arguments: a });
  const text = res.content.map((c) => c.text ?? '').join('');
  const links = res.content.filter((c) => c.type === 'resource_link');
  const structured = res.structuredContent ? JSON.stringify(res.structuredContent) : '';
  answers.push({
    call: `${tool}: ${call}`,
    results: res.structuredContent?.results?.length,
    total: res.structuredContent?.total,
    'text chars': chars(text),
    'text tokens': tokens(text),
    'link tokens': links.length ? tokens(JSON.stringify(links)) : 0,
    'structured tokens': tokens(structured),
    'sent tokens': tokens(JSON.stringify({ content: res.content, structuredContent: res.structuredContent })),
    cut: !!res.structuredContent?.warnings?.some((w) => w.includes('cut')),
  });
}
await client.close();
fs.rmSync(cache, { recursive: true, force: true });
if (process.argv.includes('--json')) console.log(JSON.stringify({ surface, answers }, null, 2));
else {
  console.log(`tools/list: ${chars(listed)} characters, ~${tokens(listed)} tokens`);
  console.table(surface);
  console.table(answers);
}
