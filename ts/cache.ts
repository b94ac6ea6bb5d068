/** Where persistent indexes live: one directory per project under the cache dir. */
import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import path from 'node:path';

export function defaultCacheDir(): string {
  if (process.env.RYE_SEARCH_CACHE_DIR) return path.resolve(process.env.RYE_SEARCH_CACHE_DIR);
  const base = process.env.XDG_CACHE_HOME || (process.platform === 'win32' ? process.env.LOCALAPPDATA : undefined) || path.join(homedir(), '.cache');
  return path.join(base, 'rye-search');
}

export function indexDirFor(cacheDir: string, projectPath: string | undefined): string {
  const key = projectPath ? path.resolve(projectPath) : '(no project)';
  const digest = createHash('sha256').update(key).digest('hex').slice(0, 16);
  const label = projectPath ? path.basename(path.resolve(projectPath)).replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 40) : 'global';
  return path.join(cacheDir, `${label}-${digest}`);
}
