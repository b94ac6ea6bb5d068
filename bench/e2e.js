import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

import { openIndex } from '../dist/index.js';
import { tier, writeTree } from './corpus.js';

const CLI = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'rye-search.js');
const [tierName] = process.argv.slice(2);
const root = fs.mkdtempSync(path.join(os.tmpdir(), `rye-e2e-${tierName}-`));
const project = path.join(root, 'project');
const cache = path.join(root, 'cache');
const user = path.join(root, 'user');
const docs = tier(tierName);
writeTree(docs, project);
const opts = { projectPath: project, userSpace: user, cacheDir: cache, includeDefaultBundle: false };
const out = { tier: tierName, files: docs.length };

const rss0 = process.resourceUsage().maxRSS;
let t = performance.now();
const index = await openIndex(opts);
out.firstIndexMs = Math.round(performance.now() - t);
out.firstIndexPeakRssMb = Math.round(process.resourceUsage().maxRSS / 1024);
out.firstIndexRssGrowthMb = Math.round((process.resourceUsage().maxRSS - rss0) / 1024);
out.indexed = index.lastReport.items;

t = performance.now();
const noop = await index.refresh();
out.noChangeRefreshMs = Math.round(performance.now() - t);
out.noChangeUnchanged = noop.unchanged;

// The walk + stat of every file that a refresh without watching (or a periodic full scan) does.
const { scanSpaces } = await import('../dist/discovery.js');
t = performance.now();
scanSpaces(index.spaces);
out.fullScanMs = Math.round(performance.now() - t);

const victim = path.join(project, '.ai', 'knowledge', `${docs[123].id}.md`);
t = performance.now();
fs.appendFileSync(victim, '\nzyzzyvaquux marker\n');
await index.refresh();
const seen = await index.search({ query: 'zyzzyvaquux', scope: 'knowledge' });
out.editVisibleMs = Math.round(performance.now() - t);
out.editFound = seen.total === 1;

const size = (dir) =>
  fs
    .readdirSync(dir, { withFileTypes: true })
    .reduce(
      (n, e) => n + (e.isDirectory() ? size(path.join(dir, e.name)) : fs.statSync(path.join(dir, e.name)).size),
      0,
    );
out.indexDiskMb = +(size(index.location) / 1048576).toFixed(1);
out.treeDiskMb = +(size(project) / 1048576).toFixed(1);
await index.close();

t = performance.now();
const reopened = await openIndex({ ...opts, refresh: false });
await reopened.search({ query: 'library', scope: 'knowledge' });
out.openFirstQueryMs = Math.round(performance.now() - t);

// MCP: spawn the server on the existing index and time the first tool answer.
t = performance.now();
const transport = new StdioClientTransport({
  command: process.execPath,
  args: [CLI, 'mcp', '--project', project, '--user-space', user, '--cache-dir', cache, '--no-default-bundle'],
  stderr: 'ignore',
});
const client = new Client({ name: 'bench', version: '1' });
await client.connect(transport);
const res = await client.callTool({ name: 'rye_search', arguments: { query: 'library', scope: 'knowledge' } });
out.mcpSpawnToFirstAnswerMs = Math.round(performance.now() - t);
out.mcpFirstAnswerOk = !res.isError;
await client.close();

fs.rmSync(root, { recursive: true, force: true });
process.stdout.write(`${JSON.stringify(out)}\n`);
