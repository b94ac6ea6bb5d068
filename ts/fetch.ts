/**
 * ID mode: resolve `kind:id` or a bare id through the space cascade, verify, return the exact
 * file, and optionally copy it to the project or user space. Ids that could leave a space
 * (`..`, absolute, NUL, encoded separators, links out of the space) are rejected.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

import { DEFAULT_MAX_FILE_BYTES, KIND_EXTENSIONS, KIND_FOLDERS } from './items.js';
import { echo, IntegrityError, InvalidArgumentError, NotFoundError, RyeSearchError, shown } from './errors.js';
import { parseItem } from './metadata.js';
import { inside, readRegularFile, UnreadableFile } from './read-file.js';
import { isKind, KINDS, type Kind } from './scope.js';
import { requestedSpace, selectSpaces, sourceOf, type Space } from './spaces.js';
import { verifyText, type Integrity, type TrustStore } from './trust/trust.js';
import { onlyKnown } from './validate.js';

export interface FetchOptions {
  item_id: string;
  item_type?: Kind;
  /** `project`, `user`, `system` or `system:<bundle_id>`; omitted = cascade. */
  source?: string;
  /** Alias of `source` (the name `search` uses). */
  space?: string;
  /** Copy the item to this space (`project` or `user`), keeping its nested path. */
  destination?: 'project' | 'user';
  /** Replace a different file at the destination (never done silently). */
  overwrite?: boolean;
  /** Accepted for registry sources; ignored for local spaces. */
  version?: string;
}

/** Every option `fetch` takes (`fetchMany` takes these but `item_id`, and `item_ids`). */
export const FETCH_OPTION_NAMES: ReadonlySet<string> = new Set<keyof FetchOptions>([
  'item_id',
  'item_type',
  'source',
  'space',
  'destination',
  'overwrite',
  'version',
]);

export interface FetchResponse {
  status: 'success';
  content: string;
  metadata: { name: string; path: string; extension: string; version?: string };
  path: string;
  source: string;
  item_type: Kind;
  item_id: string;
  bundle?: string;
  signed: boolean;
  integrity: Integrity;
  copied_to?: 'project' | 'user';
  destination_path?: string;
  /** Set in dev mode when an unverified item is returned anyway. */
  warning?: string;
}

export class InvalidIdError extends RyeSearchError {
  constructor(message: string, hint: string) {
    super('E_INVALID_ID', message, { hint });
  }
}

const ID_HINT =
  'ids are relative paths below the kind folder without extension, e.g. "rye/core/bash/bash" or "tool:rye/core/bash/bash"';

/** Splits `kind:id` and validates the id as a safe relative path. */
export function parseItemRef(itemId: unknown, itemType?: unknown): { kinds: Kind[]; id: string } {
  if (typeof itemId !== 'string' || itemId.trim() === '')
    throw new InvalidIdError('item_id must be a non-empty string', ID_HINT);
  if (itemType !== undefined && itemType !== null && !isKind(itemType)) {
    throw new InvalidArgumentError(`unknown item_type ${shown(itemType)}`, {
      hint: 'use directive, tool or knowledge',
    });
  }
  let id = itemId.trim();
  let kind = (itemType ?? undefined) as Kind | undefined;
  const colon = id.indexOf(':');
  if (colon > 0 && isKind(id.slice(0, colon))) {
    const prefixed = id.slice(0, colon) as Kind;
    if (kind && kind !== prefixed)
      throw new InvalidArgumentError(`item_id says ${prefixed} but item_type says ${kind}`, { hint: 'give one kind' });
    kind = prefixed;
    id = id.slice(colon + 1);
    if (id === '') throw new InvalidIdError(`"${echo(itemId)}" has no id after "${prefixed}:"`, ID_HINT);
  }
  if (id.includes('\0')) throw new InvalidIdError('item_id contains a NUL byte', ID_HINT);
  if (/%(2f|5c|2e|00)/i.test(id))
    throw new InvalidIdError(`item_id "${echo(id)}" contains an encoded separator`, ID_HINT);
  if (id.includes('\\')) throw new InvalidIdError(`item_id "${echo(id)}" uses backslashes`, 'use / between segments');
  if (path.isAbsolute(id) || path.win32.isAbsolute(id) || id.startsWith('/'))
    throw new InvalidIdError(`item_id "${echo(id)}" is an absolute path`, ID_HINT);
  const segments = id.split('/');
  for (const s of segments) {
    if (s === '' || s === '.' || s === '..')
      throw new InvalidIdError(`item_id "${echo(id)}" has an empty, "." or ".." segment`, ID_HINT);
    if (s.startsWith('.') || s.startsWith('_'))
      throw new InvalidIdError(`item_id "${echo(id)}" names a hidden or private file, which is not an item`, ID_HINT);
  }
  return { kinds: kind ? [kind] : [...KINDS], id };
}

interface Found {
  kind: Kind;
  space: Space;
  file: string;
  ext: string;
  /** The id as the file spells it (see [`idForms`]). */
  id: string;
}

/**
 * The id as given, then its other Unicode forms: a file whose name is in NFD (as macOS writes
 * names) is found by an id typed in NFC, and the other way round.
 */
function idForms(id: string): string[] {
  return [...new Set([id, id.normalize('NFC'), id.normalize('NFD')])];
}

function lookup(space: Space, kind: Kind, asked: string): Found | undefined {
  const base = path.join(space.aiDir, KIND_FOLDERS[kind]);
  for (const [id, ext] of idForms(asked).flatMap((id) => KIND_EXTENSIONS[kind].map((ext) => [id, ext] as const))) {
    const file = path.join(base, id + ext);
    let st: fs.Stats;
    try {
      st = fs.statSync(file);
    } catch {
      continue;
    }
    if (!st.isFile()) continue;
    const real = fs.realpathSync(file);
    if (!inside(fs.realpathSync(space.aiDir), real)) {
      throw new InvalidIdError(`${file} links outside its space`, 'links that leave a space are never followed');
    }
    return { kind, space, file, ext, id };
  }
  return undefined;
}

export interface FetchContext {
  spaces: Space[];
  trust: TrustStore;
  maxFileBytes?: number;
  devMode?: boolean;
  /** Indexed `kind:id`s in `spaces` whose id ends with `id` (its last segments), for a not-found's hint. */
  endingWith?: (kinds: readonly string[], id: string, spaces: readonly Space[]) => string[];
}

/** Fetches one item; `loadParsers()` must have resolved first (the index's `fetch` does it). */
export function fetchItem(opts: FetchOptions, ctx: FetchContext): FetchResponse {
  if (!opts || typeof opts !== 'object')
    throw new InvalidArgumentError('fetch options must be an object', { hint: 'pass { item_id }' });
  onlyKnown(opts, FETCH_OPTION_NAMES, 'fetch');
  const { kinds, id: asked } = parseItemRef(opts.item_id, opts.item_type);
  const source = requestedSpace(opts);
  const spaces = source === undefined ? ctx.spaces : selectSpaces(ctx.spaces, source);
  const found: Found[] = [];
  for (const kind of kinds) {
    for (const space of spaces) {
      const hit = lookup(space, kind, asked);
      if (hit) {
        found.push(hit);
        break;
      }
    }
  }
  if (found.length === 0) {
    // Agents often give an item's name, or the end of its id: the ids it ends are named.
    const near = ctx.endingWith?.(kinds, asked, spaces) ?? [];
    const meant = near.length ? `did you mean ${near.map((id) => `"${echo(id)}"`).join(', ')}? ` : '';
    throw new NotFoundError(`Item not found: ${echo(asked)}`, {
      hint: `${meant}looked for ${kinds.join('/')} "${echo(asked)}" in ${spaces.map((s) => s.label).join(', ') || 'no spaces'}; find the id with a search (rye_search, rye-search search), or name the space with source (--source)`,
    });
  }
  if (found.length > 1) {
    throw new RyeSearchError(
      'E_AMBIGUOUS',
      `Ambiguous item_id "${echo(asked)}": exists as ${found.map((f) => f.kind).join(', ')}`,
      {
        hint: `pass item_type (${found.map((f) => f.kind).join(' or ')}) or write it as kind:id`,
      },
    );
  }
  const item = found[0]!;
  const id = item.id;
  let bytes: Buffer;
  try {
    // Checked again on what is opened: the file may have been swapped for a link since lookup.
    bytes = readRegularFile(item.file, ctx.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES, fs.realpathSync(item.space.aiDir));
  } catch (err) {
    if (!(err instanceof UnreadableFile)) throw err;
    throw new RyeSearchError('E_LIMIT', `${item.file} cannot be served: ${err.message}`, {
      hint: 'only regular files under the size cap (maxFileBytes) are items',
    });
  }
  const content = bytes.toString('utf8');
  const v = verifyText(content, item.kind, item.ext, ctx.trust, id);
  let warning: string | undefined;
  if (v.integrity !== 'verified') {
    const message = `Integrity check failed for ${item.kind}:${id} (${v.integrity}): ${v.reason ?? ''}`.trim();
    if (!ctx.devMode) {
      throw new IntegrityError(message, {
        hint: `${v.integrity === 'untrusted' ? "add the signer's key to .ai/config/keys/trusted/" : 're-sign the item'}, or set RYE_DEV_MODE=1 to load unverified items while developing`,
      });
    }
    warning = `${message} (returned because RYE_DEV_MODE=1)`;
  }
  const meta = parseItem(item.kind, content, path.basename(id), item.ext);
  const res: FetchResponse = {
    status: 'success',
    content,
    metadata: {
      name: path.posix.basename(id),
      path: item.file,
      extension: item.ext,
      ...(meta.version ? { version: meta.version } : {}),
    },
    path: item.file,
    source: sourceOf(item.space.label),
    item_type: item.kind,
    item_id: id,
    signed: v.signed,
    integrity: v.integrity,
  };
  if (item.space.bundleId) res.bundle = item.space.bundleId;
  if (warning) res.warning = warning;
  if (opts.destination !== undefined && opts.destination !== null) copyTo(opts, item, id, bytes, ctx, res);
  return res;
}

function copyTo(
  opts: FetchOptions,
  item: Found,
  id: string,
  bytes: Buffer,
  ctx: FetchContext,
  res: FetchResponse,
): void {
  const dest = opts.destination;
  if (dest !== 'project' && dest !== 'user')
    throw new InvalidArgumentError(`destination must be "project" or "user", got ${shown(dest)}`, {
      hint: 'system bundles are read-only',
    });
  if (item.space.kind === dest) return; // already there
  const space = ctx.spaces.find((s) => s.kind === dest);
  if (!space)
    throw new InvalidArgumentError(`no ${dest} space to copy to`, {
      hint: 'pass project_path (projectPath) to copy into a project',
    });
  const target = path.join(space.aiDir, KIND_FOLDERS[item.kind], id + item.ext);
  makeDirsInside(space.aiDir, path.dirname(target), dest);
  let existing: Buffer | undefined;
  const st = fs.lstatSync(target, { throwIfNoEntry: false });
  if (st?.isSymbolicLink()) throw new InvalidIdError(`the destination ${target} is a link`, 'remove the link first');
  if (st && !st.isFile()) {
    throw new RyeSearchError('E_EXISTS', `the destination ${target} exists and is not a regular file`, {
      hint: 'move it away, then fetch again',
    });
  }
  if (st) existing = readRegularFile(target, Math.max(st.size, bytes.length));
  const same =
    existing &&
    createHash('sha256').update(existing).digest('hex') === createHash('sha256').update(bytes).digest('hex');
  if (existing && !same && !opts.overwrite) {
    throw new RyeSearchError('E_EXISTS', `${target} already exists with different content`, {
      hint: 'replace it with overwrite: true (--overwrite on the command line)',
    });
  }
  if (!same) {
    const tmp = `${target}.${process.pid}.tmp`;
    try {
      fs.writeFileSync(tmp, bytes, { flag: 'wx' });
      fs.renameSync(tmp, target);
    } catch (err) {
      fs.rmSync(tmp, { force: true });
      throw new RyeSearchError('E_IO', `cannot write ${target}: ${(err as Error).message}`, {
        hint: 'check that the destination folder is writable',
      });
    }
  }
  res.copied_to = dest;
  res.destination_path = target;
}

/**
 * Creates `dir` under the space's `.ai` one level at a time, each existing level checked to stay
 * inside the space first: a link in the way must not make us create folders elsewhere.
 */
function makeDirsInside(aiDir: string, dir: string, dest: string): void {
  fs.mkdirSync(aiDir, { recursive: true });
  const root = fs.realpathSync(aiDir);
  let at = aiDir;
  for (const part of path.relative(aiDir, dir).split(path.sep).filter(Boolean)) {
    at = path.join(at, part);
    const st = fs.lstatSync(at, { throwIfNoEntry: false });
    if (!st) {
      fs.mkdirSync(at);
      continue;
    }
    const real = fs.realpathSync(at);
    if (!inside(root, real)) {
      throw new InvalidIdError(
        `the destination ${dir} leads outside the ${dest} space through a link`,
        'remove the link, or copy by hand',
      );
    }
    if (!fs.statSync(at).isDirectory()) {
      throw new RyeSearchError('E_EXISTS', `${at} is in the way of the destination and is not a folder`, {
        hint: 'move it away, then fetch again',
      });
    }
  }
}
