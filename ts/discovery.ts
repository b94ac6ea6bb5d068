/**
 * Walks the kind folders of each space and lists item files. Everything that is not an item is
 * reported with a reason — never silently dropped. Links are followed only while they stay
 * inside the space, and each real directory is visited once (no loops).
 */
import fs from 'node:fs';
import path from 'node:path';

import { native } from './native.js';
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
  /** Unique key in the index: space label + path. */
  key: string;
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

/** A file found by the walk; mtime and size are filled in by the batch stat. */
type Pending = Candidate;

export function scanSpaces(spaces: Space[], maxFileBytes = DEFAULT_MAX_FILE_BYTES): Scan {
  const scan: Scan = { candidates: [], skipped: [] };
  const pending: Pending[] = [];
  for (const space of spaces) {
    let spaceReal: string;
    try {
      spaceReal = fs.realpathSync(space.aiDir);
    } catch {
      continue; // a space that does not exist has no items
    }
    for (const kind of Object.keys(KIND_FOLDERS) as Kind[]) {
      const root = path.join(space.aiDir, KIND_FOLDERS[kind]);
      walk(root, '', kind, space, spaceReal, new Set(), scan, pending);
    }
  }
  // One native call stats every file on all cores: the bulk of a no-change refresh.
  const stats = native((b) => b.statMany(pending.map((p) => p.path).join('\0')));
  for (let i = 0; i < pending.length; i++) {
    const p = pending[i]!;
    const type = stats[i * 3 + 2]!;
    p.mtime = stats[i * 3]!;
    p.size = stats[i * 3 + 1]!;
    if (type !== 1) scan.skipped.push({ path: p.path, reason: type === 0 ? 'unreadable' : 'not-a-file', detail: type === 0 ? 'vanished during the scan' : undefined });
    else if (p.size > maxFileBytes) scan.skipped.push({ path: p.path, reason: 'too-large', detail: `${p.size} bytes > ${maxFileBytes}` });
    else scan.candidates.push(p);
  }
  return scan;
}

/** `relDir` is the directory's id prefix (`a/b`), carried down to avoid path arithmetic per file. */
function walk(
  dir: string,
  relDir: string,
  kind: Kind,
  space: Space,
  spaceReal: string,
  visited: Set<string>,
  scan: Scan,
  pending: Pending[],
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
    if (relDir !== '' || (err as NodeJS.ErrnoException).code !== 'ENOENT') {
      scan.skipped.push({ path: dir, reason: 'unreadable', detail: (err as Error).message });
    }
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const prefix = dir + path.sep;
  for (const entry of entries) {
    const full = prefix + entry.name;
    if (entry.name.startsWith('.')) {
      scan.skipped.push({ path: full, reason: IGNORED_DIRS.has(entry.name) ? 'ignored-dir' : 'hidden' });
      continue;
    }
    if (entry.name.startsWith('_')) {
      scan.skipped.push({ path: full, reason: IGNORED_DIRS.has(entry.name) ? 'ignored-dir' : 'underscore' });
      continue;
    }
    let isDir = entry.isDirectory();
    let isFile = entry.isFile();
    if (entry.isSymbolicLink()) {
      // Links are followed only while they stay inside the space.
      let target: string;
      let st: fs.Stats;
      try {
        target = fs.realpathSync(full);
        st = fs.statSync(full);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        scan.skipped.push({ path: full, reason: code === 'ELOOP' ? 'link-loop' : 'unreadable', detail: code });
        continue;
      }
      if (!inside(spaceReal, target)) {
        scan.skipped.push({ path: full, reason: 'link-outside-space', detail: target });
        continue;
      }
      isDir = st.isDirectory();
      isFile = st.isFile();
    }
    if (isDir) {
      if (IGNORED_DIRS.has(entry.name)) {
        scan.skipped.push({ path: full, reason: 'ignored-dir' });
        continue;
      }
      walk(full, relDir ? `${relDir}/${entry.name}` : entry.name, kind, space, spaceReal, visited, scan, pending);
      continue;
    }
    if (!isFile) {
      scan.skipped.push({ path: full, reason: 'not-a-file' });
      continue;
    }
    const dot = entry.name.lastIndexOf('.');
    const ext = dot > 0 ? entry.name.slice(dot) : '';
    const name = ext ? entry.name.slice(0, dot) : entry.name;
    const id = relDir ? `${relDir}/${name}` : name;
    if (!KIND_EXTENSIONS[kind].includes(ext.toLowerCase())) {
      scan.skipped.push({ path: full, reason: 'extension', detail: ext || '(none)' });
      continue;
    }
    pending.push({ key: `${space.label}|${full}`, path: full, kind, id, name, ext: ext.toLowerCase(), space, mtime: 0, size: 0 });
  }
}
