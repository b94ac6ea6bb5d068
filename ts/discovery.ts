/**
 * Walks the kind folders of each space and lists item files. Everything that is not an item is
 * reported with a reason — never silently dropped. Links are followed only while they stay
 * inside the space, and each real directory is visited once (no loops).
 */
import fs from 'node:fs';
import path from 'node:path';

import type { Kind } from './scope.js';
import type { Space } from './spaces.js';

export const KIND_FOLDERS: Record<Kind, string> = { directive: 'directives', tool: 'tools', knowledge: 'knowledge' };

export const KIND_EXTENSIONS: Record<Kind, readonly string[]> = {
  directive: ['.md'],
  tool: ['.py', '.yaml', '.yml', '.json', '.js', '.ts', '.mjs', '.cjs', '.sh', '.toml'],
  knowledge: ['.md', '.yaml', '.yml'],
};

export const IGNORED_DIRS = new Set(['node_modules', '__pycache__', '.git', '.venv']);

/** Default size cap for an item file. */
export const DEFAULT_MAX_FILE_BYTES = 1024 * 1024;

export interface Candidate {
  path: string;
  kind: Kind;
  id: string;
  name: string;
  ext: string;
  space: Space;
  mtime: number;
  size: number;
}

export type SkipReason =
  | 'hidden'
  | 'underscore'
  | 'ignored-dir'
  | 'extension'
  | 'too-large'
  | 'not-utf8'
  | 'binary'
  | 'link-outside-space'
  | 'link-loop'
  | 'unreadable'
  | 'not-a-file';

export interface Skip {
  path: string;
  reason: SkipReason;
  detail?: string;
}

export interface Scan {
  candidates: Candidate[];
  skipped: Skip[];
}

/** Microsecond mtime, so two edits within one millisecond still differ. */
export function mtimeOf(st: fs.Stats): number {
  return Math.round(st.mtimeMs * 1000);
}

export function itemId(relative: string): { id: string; name: string; ext: string } {
  const posix = relative.split(path.sep).join('/');
  const ext = path.posix.extname(posix);
  const id = ext ? posix.slice(0, -ext.length) : posix;
  return { id, name: path.posix.basename(id), ext };
}

function inside(root: string, target: string): boolean {
  const rel = path.relative(root, target);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

export function scanSpaces(spaces: Space[], maxFileBytes = DEFAULT_MAX_FILE_BYTES): Scan {
  const scan: Scan = { candidates: [], skipped: [] };
  for (const space of spaces) {
    let spaceReal: string;
    try {
      spaceReal = fs.realpathSync(space.aiDir);
    } catch {
      continue; // a space that does not exist has no items
    }
    for (const kind of Object.keys(KIND_FOLDERS) as Kind[]) {
      const root = path.join(space.aiDir, KIND_FOLDERS[kind]);
      walk(root, root, kind, space, spaceReal, new Set(), scan, maxFileBytes);
    }
  }
  return scan;
}

function walk(
  dir: string,
  root: string,
  kind: Kind,
  space: Space,
  spaceReal: string,
  visited: Set<string>,
  scan: Scan,
  maxFileBytes: number,
): void {
  let real: string;
  try {
    real = fs.realpathSync(dir);
  } catch {
    return;
  }
  if (visited.has(real)) {
    scan.skipped.push({ path: dir, reason: 'link-loop' });
    return;
  }
  visited.add(real);
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    if (dir !== root || (err as NodeJS.ErrnoException).code !== 'ENOENT') {
      scan.skipped.push({ path: dir, reason: 'unreadable', detail: (err as Error).message });
    }
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.name.startsWith('.')) {
      scan.skipped.push({ path: full, reason: IGNORED_DIRS.has(entry.name) ? 'ignored-dir' : 'hidden' });
      continue;
    }
    if (entry.name.startsWith('_')) {
      scan.skipped.push({ path: full, reason: IGNORED_DIRS.has(entry.name) ? 'ignored-dir' : 'underscore' });
      continue;
    }
    let st: fs.Stats;
    try {
      st = fs.statSync(full); // follows links; where they lead is checked below
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      scan.skipped.push({ path: full, reason: code === 'ELOOP' ? 'link-loop' : 'unreadable', detail: code });
      continue;
    }
    if (entry.isSymbolicLink()) {
      let target: string;
      try {
        target = fs.realpathSync(full);
      } catch {
        scan.skipped.push({ path: full, reason: 'link-loop' });
        continue;
      }
      if (!inside(spaceReal, target)) {
        scan.skipped.push({ path: full, reason: 'link-outside-space', detail: target });
        continue;
      }
    }
    if (st.isDirectory()) {
      if (IGNORED_DIRS.has(entry.name)) {
        scan.skipped.push({ path: full, reason: 'ignored-dir' });
        continue;
      }
      walk(full, root, kind, space, spaceReal, visited, scan, maxFileBytes);
      continue;
    }
    if (!st.isFile()) {
      scan.skipped.push({ path: full, reason: 'not-a-file' });
      continue;
    }
    const { id, name, ext } = itemId(path.relative(root, full));
    if (!KIND_EXTENSIONS[kind].includes(ext.toLowerCase())) {
      scan.skipped.push({ path: full, reason: 'extension', detail: ext || '(none)' });
      continue;
    }
    if (st.size > maxFileBytes) {
      scan.skipped.push({ path: full, reason: 'too-large', detail: `${st.size} bytes > ${maxFileBytes}` });
      continue;
    }
    scan.candidates.push({ path: full, kind, id, name, ext: ext.toLowerCase(), space, mtime: mtimeOf(st), size: st.size });
  }
}
