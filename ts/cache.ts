/** Where persistent indexes live: one directory per configuration of spaces under the cache dir. */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { homedir, tmpdir, userInfo } from 'node:os';
import path from 'node:path';

import { DEFAULT_MAX_FILE_BYTES } from './items.js';

/**
 * The cache directory for an `openIndex` option, and whether it was chosen (the option, or
 * `RYE_SEARCH_CACHE_DIR`) rather than the user's usual cache (`XDG_CACHE_HOME`, `~/.cache`).
 */
export function cacheDirFor(option: string | undefined): { dir: string; chosen: boolean } {
  const chosen = option ?? (process.env.RYE_SEARCH_CACHE_DIR || undefined);
  if (chosen !== undefined) return { dir: path.resolve(chosen), chosen: true };
  const base =
    process.env.XDG_CACHE_HOME ||
    (process.platform === 'win32' ? process.env.LOCALAPPDATA : undefined) ||
    path.join(homedir(), '.cache');
  return { dir: path.resolve(base, 'rye-search'), chosen: false };
}

/**
 * Where indexes are kept when the usual cache cannot hold one (a read-only home in a sandbox or
 * a container): this user's own folder in the system's temporary directory, or none. A folder
 * there that is not this user's, or that others may write to, is never used (anyone can make
 * one of that name first).
 */
export function fallbackCacheDir(): string | undefined {
  const uid = process.getuid?.();
  const dir = path.join(tmpdir(), `rye-search-${uid ?? userInfo().username.replace(/[^A-Za-z0-9._-]/g, '_')}`);
  try {
    fs.mkdirSync(dir, { mode: 0o700 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return undefined;
  }
  try {
    const st = fs.lstatSync(dir);
    const own = uid === undefined || (st.uid === uid && (st.mode & 0o022) === 0);
    return st.isDirectory() && own ? dir : undefined;
  } catch {
    return undefined;
  }
}

/**
 * One index per configuration of spaces (the project, the user space and the bundles in order)
 * and embedding model (vectors of one model are meaningless to another, and an index built
 * without one has none), the schema version the native build writes, and the file size cap when
 * it is not the default.
 * Processes with other settings (an MCP server started without the user's environment, a CLI
 * with RYE_SYSTEM_BUNDLES) must never undo each other's index, so each gets its own directory.
 */
export function indexDirFor(
  cacheDir: string,
  projectPath: string | undefined,
  spaces: readonly { label: string; aiDir: string }[],
  model: string,
  schema: number,
  maxFileBytes: number,
): string {
  const configuration = JSON.stringify([
    projectPath ? path.resolve(projectPath) : null,
    spaces.map((s) => [s.label, path.resolve(s.aiDir)]),
    model,
    // Two versions of the package sharing a cache (a global CLI, an MCP server run by npx) each
    // cleared the other's index on open, under the other's feet.
    schema,
    // A file one size cap indexes another skips and removes: processes with two caps took turns
    // adding and removing it. The default adds nothing, so the folders made before it stay.
    ...(maxFileBytes === DEFAULT_MAX_FILE_BYTES ? [] : [maxFileBytes]),
  ]);
  const digest = createHash('sha256').update(configuration).digest('hex').slice(0, 16);
  const label = projectPath
    ? path
        .basename(path.resolve(projectPath))
        .replace(/[^A-Za-z0-9._-]/g, '_')
        .slice(0, 40)
    : 'global';
  return path.join(cacheDir, `${label}-${digest}`);
}

/** Indexes kept in a cache directory: past this, the least recently used idle ones are removed. */
export const MAX_CACHED_INDEXES = 16;
/** An index used this recently may be open in another process: it is never removed. */
const IDLE_MS = 10 * 60 * 1000;
/** What {@link indexDirFor} names: only such folders holding an index are ever removed. */
const INDEX_DIR = /^[A-Za-z0-9._-]{1,40}-[0-9a-f]{16}$/;
const SCHEMA_FILE = 'rye-search-schema';

/** Marks an index as used now (its folder's time): what {@link pruneCache} ranks by. */
export function markUsed(location: string): void {
  try {
    const now = new Date();
    fs.utimesSync(location, now, now);
  } catch {
    // A cache that cannot be marked still serves; it may be pruned sooner.
  }
}

/**
 * Marks `location` as used now and removes the least recently used indexes of its cache beyond
 * {@link MAX_CACHED_INDEXES} (each distinct project path keeps an index that copies the user
 * space).
 */
export function pruneCache(cacheDir: string, location: string, max = MAX_CACHED_INDEXES): void {
  const now = new Date();
  markUsed(location);
  try {
    const indexes = fs
      .readdirSync(cacheDir, { withFileTypes: true })
      .filter((e) => e.isDirectory() && INDEX_DIR.test(e.name))
      .map((e) => path.join(cacheDir, e.name))
      .filter((dir) => dir !== location && fs.existsSync(path.join(dir, SCHEMA_FILE)))
      .map((dir) => ({ dir, used: fs.statSync(dir).mtimeMs }))
      .sort((a, b) => b.used - a.used);
    for (const { dir, used } of indexes.slice(Math.max(0, max - 1))) {
      if (now.getTime() - used >= IDLE_MS) fs.rmSync(dir, { recursive: true, force: true });
    }
  } catch {
    // A cache that cannot be pruned still serves.
  }
}
