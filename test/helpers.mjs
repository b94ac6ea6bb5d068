// Test helpers: temporary trees of RYE items, and running the CLI as a user would.
import { spawnSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const CLI = path.join(ROOT, 'bin', 'rye-search.js');
export const SHARED = path.resolve(ROOT, '..', 'shared');
/** The corpora (../shared/corpus beside the clone, or RYE_CORPUS_DIR); suites that need one skip without it. */
export const CORPUS = process.env.RYE_CORPUS_DIR
  ? path.resolve(process.env.RYE_CORPUS_DIR)
  : path.join(SHARED, 'corpus');

export function tmpdir(prefix = 'rye-test-') {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Writes { 'relative/path': content } under root. */
export function writeTree(root, files) {
  for (const [rel, content] of Object.entries(files)) {
    const full = path.join(root, rel);
    fs.mkdirSync(path.dirname(full), { recursive: true });
    fs.writeFileSync(full, content);
  }
  return root;
}

export function directive(name, description, { category = '', version = '1.0.0', body = '' } = {}) {
  return `# ${name}\n\n\`\`\`xml\n<directive name="${name}" version="${version}">\n  <metadata>\n    <description>${description}</description>\n${category ? `    <category>${category}</category>\n` : ''}  </metadata>\n</directive>\n\`\`\`\n\n${body}\n`;
}

export function knowledge(meta, body = '') {
  const yaml = Object.entries(meta)
    .map(([k, v]) => `${k}: ${Array.isArray(v) ? `[${v.join(', ')}]` : JSON.stringify(v)}`)
    .join('\n');
  return `\`\`\`yaml\n${yaml}\n\`\`\`\n\n${body}\n`;
}

export function pyTool({ description = '', category = '', version = '1.0.0', body = '' } = {}) {
  return `"""Tool docstring."""\n__version__ = "${version}"\n__category__ = "${category}"\n__tool_description__ = "${description}"\n\n${body}\n`;
}

/**
 * `describe(name, fn)`, or when `missing` says what is absent, one skipped test of that name: a
 * skipped suite is not counted in the runner's closing `# skipped` line, where CI reads it.
 */
export function describeIf(missing, name, fn) {
  return missing ? it(name, { skip: missing }, () => {}) : describe(name, fn);
}

/** A workspace: project, user and bundle dirs, plus an isolated cache. */
export function workspace() {
  const root = tmpdir();
  return {
    root,
    project: path.join(root, 'project'),
    user: path.join(root, 'user'),
    cache: path.join(root, 'cache'),
    bundle: (id) => path.join(root, 'bundles', id),
    write(space, files) {
      const base = space === 'project' ? this.project : space === 'user' ? this.user : this.bundle(space);
      writeTree(path.join(base, '.ai'), files);
    },
    cleanup() {
      // Tantivy may still be finishing a background merge in the cache (a small commit does not
      // wait for the merges it starts): retry for a few seconds instead of failing.
      fs.rmSync(root, { recursive: true, force: true, maxRetries: 50, retryDelay: 100 });
    },
  };
}

/** `openIndex` options for a workspace's spaces and cache, without the package's own bundle. */
export function wsOptions(ws, extra = {}) {
  return { projectPath: ws.project, userSpace: ws.user, cacheDir: ws.cache, includeDefaultBundle: false, ...extra };
}

/** The CLI options that point a command at a workspace and nothing else (no default bundle). */
export function wsArgs(ws) {
  return ['--project', ws.project, '--user-space', ws.user, '--cache-dir', ws.cache, '--no-default-bundle'];
}

/** Clients `connectMcp` opened in this test file. */
const openClients = new Set();
// A test that fails before closing its client would leave the server running, and the test
// file would then never end: whatever is still open is closed when the file's tests are done.
after(async () => {
  await Promise.all([...openClients].map((client) => client.close().catch(() => undefined)));
});

/**
 * Estimated tokens of everything a tool answer sends (its text and its structured content), by the
 * rule the server's budget uses: UTF-8 bytes of the JSON / 4.
 */
export function sentTokens(res) {
  return Buffer.byteLength(JSON.stringify({ content: res.content, structuredContent: res.structuredContent })) / 4;
}

/** Starts `rye-search mcp <args>` (with `env` added to ours) and connects an MCP SDK client to it, as an agent's host does. */
export async function connectMcp(args, { name = 'rye-search-test', stderr = 'pipe', env = {} } = {}) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', ...args],
    stderr,
    env: { ...process.env, CI: '1', ...env },
  });
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(transport);
  openClients.add(client);
  return { client, transport };
}

/** Runs the CLI synchronously; returns { status, stdout, stderr }. */
export function runCli(args, { cwd = ROOT, env = {} } = {}) {
  const res = spawnSync(process.execPath, [CLI, ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, CI: '1', ...env },
    timeout: 60_000,
  });
  return { status: res.status, stdout: res.stdout, stderr: res.stderr };
}

/**
 * Starts `rye-search mcp --http 0 <args>` (a free port) and resolves when it listens: the child
 * and its URL (`http://127.0.0.1:PORT/mcp`). Kill the child when done.
 */
export async function startHttpServer(args, opts = {}) {
  const child = spawnCli(['mcp', '--http', '0', ...args], opts);
  const url = await new Promise((resolve, reject) => {
    let err = '';
    child.stderr.on('data', (d) => {
      err += d;
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(err);
      if (m) resolve(m[1]);
    });
    child.on('exit', (code) => reject(new Error(`server exited ${code}: ${err}`)));
  });
  return { child, url: new URL(url) };
}

export function spawnCli(args, opts = {}) {
  return spawn(process.execPath, [CLI, ...args], { ...opts, env: { ...process.env, ...(opts.env ?? {}) } });
}
