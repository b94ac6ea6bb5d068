/**
 * The item vocabulary: where each kind lives in a space's `.ai/`, which extensions it takes,
 * which folders are never items, and the default size cap. Discovery, fetch and verify share it.
 */
import type { Kind } from './scope.js';

export const KIND_FOLDERS: Record<Kind, string> = { directive: 'directives', tool: 'tools', knowledge: 'knowledge' };

export const KIND_EXTENSIONS: Record<Kind, readonly string[]> = {
  directive: ['.md'],
  tool: ['.py', '.yaml', '.yml', '.json', '.js', '.ts', '.mjs', '.cjs', '.sh', '.toml'],
  knowledge: ['.md', '.yaml', '.yml'],
};

export const IGNORED_DIRS = new Set(['node_modules', '__pycache__', '.git', '.venv']);

/** What a signature check can say of an item (see `trust/trust.ts`). */
export const INTEGRITIES = ['verified', 'unsigned', 'modified', 'untrusted', 'invalid'] as const;

/** Where a result comes from: its space's kind (a bundle's id is told apart). */
export const SOURCES = ['project', 'user', 'system'] as const;

/** Default size cap for an item file. */
export const DEFAULT_MAX_FILE_BYTES = 1024 * 1024;
/** The largest size cap taken: an item is a document an agent reads, and reads are held whole. */
export const MAX_FILE_BYTES_CAP = 64 * 1024 * 1024;
