/** Verify one file by path: its kind, id and space come from where it sits under `.ai/`. */
import path from 'node:path';

import { DEFAULT_MAX_FILE_BYTES, KIND_FOLDERS } from '../items.js';
import { InvalidArgumentError } from '../errors.js';
import { readRegularFile } from '../read-file.js';
import type { Kind } from '../scope.js';
import { resolveSpaces, type SpaceOptions } from '../spaces.js';
import { TrustStore, verifyText, type Verification } from './trust.js';

export interface ItemVerification extends Verification {
  path: string;
  kind: Kind;
  id: string;
}

/**
 * Trusted keys come from the file's own space plus the usual user and system spaces
 * (`options` as for `openIndex`).
 */
export function verifyItem(file: string, options: SpaceOptions = {}): ItemVerification {
  const full = path.resolve(file);
  const parts = full.split(path.sep);
  const at = parts.lastIndexOf('.ai');
  const folder = at >= 0 ? parts[at + 1] : undefined;
  const kind = (Object.keys(KIND_FOLDERS) as Kind[]).find((k) => KIND_FOLDERS[k] === folder);
  if (!kind) {
    throw new InvalidArgumentError(`${full} is not inside .ai/directives, .ai/tools or .ai/knowledge`, {
      hint: 'pass the path of an item file',
    });
  }
  const ext = path.extname(full);
  const rel = parts.slice(at + 2).join('/');
  const id = rel.slice(0, rel.length - ext.length);
  const ownSpace = {
    label: 'project',
    kind: 'project' as const,
    aiDir: parts.slice(0, at + 1).join(path.sep),
    rank: 0,
  };
  const trust = TrustStore.load([ownSpace, ...resolveSpaces({ ...options, projectPath: undefined })]);
  const text = readRegularFile(full, DEFAULT_MAX_FILE_BYTES).toString('utf8');
  return { path: full, kind, id, ...verifyText(text, kind, ext, trust, id) };
}
