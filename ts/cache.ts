/** Where persistent indexes live: one directory per configuration of spaces under the cache dir. */
import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import path from 'node:path';

export function defaultCacheDir(): string {
  if (process.env.RYE_SEARCH_CACHE_DIR) return path.resolve(process.env.RYE_SEARCH_CACHE_DIR);
  const base =
    process.env.XDG_CACHE_HOME ||
    (process.platform === 'win32' ? process.env.LOCALAPPDATA : undefined) ||
    path.join(homedir(), '.cache');
  return path.join(base, 'rye-search');
}

/**
 * One index per configuration of spaces (the project, the user space and the bundles in order)
 * and embedding model (vectors of one model are meaningless to another, and an index built
 * without one has none).
 * Processes with other settings (an MCP server started without the user's environment, a CLI
 * with RYE_SYSTEM_BUNDLES) must never undo each other's index, so each gets its own directory.
 */
export function indexDirFor(
  cacheDir: string,
  projectPath: string | undefined,
  spaces: readonly { label: string; aiDir: string }[],
  model: string,
): string {
  const configuration = JSON.stringify([
    projectPath ? path.resolve(projectPath) : null,
    spaces.map((s) => [s.label, path.resolve(s.aiDir)]),
    model,
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
