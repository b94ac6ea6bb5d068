/**
 * Spaces: project (`<project>/.ai`), user (`$USER_SPACE/.ai` or `~/.ai`) and system bundles
 * (`<root>/.ai`, labelled `system:<id>`). Precedence project > user > bundles in order.
 */
import fs from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { InvalidArgumentError, readingTheirs, shown } from './errors.js';
import { copiedList, isPath, PATH_RULE, wellFormed } from './validate.js';

export interface SystemBundle {
  id: string;
  /** Directory that holds the bundle's `.ai/`. */
  root: string;
}

export type SpaceKind = 'project' | 'user' | 'system';

export interface Space {
  label: string;
  kind: SpaceKind;
  /** The `.ai` directory. */
  aiDir: string;
  /** 0 project, 1 user, 2 system. */
  rank: number;
  bundleId?: string;
}

/** The package's own documentation bundle. */
export const DEFAULT_BUNDLE: SystemBundle = {
  id: 'rye-search',
  root: path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'bundle'),
};

/** `ID=DIR` entries joined by the platform's path delimiter. */
export function bundlesFromEnv(value = process.env.RYE_SYSTEM_BUNDLES): SystemBundle[] {
  if (!value) return [];
  return value
    .split(path.delimiter)
    .filter((entry) => entry.trim() !== '')
    .map((entry) => parseBundleSpec(entry));
}

export function parseBundleSpec(entry: string): SystemBundle {
  const eq = entry.indexOf('=');
  if (eq <= 0 || eq === entry.length - 1) {
    throw new InvalidArgumentError(`invalid system bundle ${shown(entry)}`, { hint: 'write bundles as ID=DIR' });
  }
  return { id: entry.slice(0, eq).trim(), root: path.resolve(entry.slice(eq + 1).trim()) };
}

/** A project path as given by a caller: it must be an existing directory (nothing is created for a guess). */
export function checkProjectDir(projectPath: string): string {
  const dir = path.resolve(projectPath);
  const hint = 'pass the directory that holds .ai/';
  let st: fs.Stats | undefined;
  try {
    st = fs.statSync(dir, { throwIfNoEntry: false });
  } catch (err) {
    // A path too long, through a file, looping or not ours to read: the caller's to correct.
    const code = (err as NodeJS.ErrnoException).code ?? 'EIO';
    throw new InvalidArgumentError(`project path ${shown(dir)} cannot be read (${code})`, { hint });
  }
  if (!st) throw new InvalidArgumentError(`project directory ${dir} does not exist`, { hint });
  if (!st.isDirectory()) throw new InvalidArgumentError(`project path ${dir} is not a directory`, { hint });
  return dir;
}

function defaultUserSpace(): string {
  const fromEnv = process.env.USER_SPACE;
  if (fromEnv && fromEnv.trim() !== '') return path.resolve(fromEnv.replace(/^~(?=$|[/\\])/, homedir()));
  return homedir();
}

export interface SpaceOptions {
  projectPath?: string;
  userSpace?: string;
  systemBundles?: SystemBundle[];
  /** Include the package's own bundle after the given ones (default true). */
  includeDefaultBundle?: boolean;
}

export function resolveSpaces(opts: SpaceOptions): Space[] {
  const spaces: Space[] = [];
  if (opts.projectPath) {
    spaces.push({
      label: 'project',
      kind: 'project',
      aiDir: path.join(path.resolve(opts.projectPath), '.ai'),
      rank: 0,
    });
  }
  const user = opts.userSpace ?? defaultUserSpace();
  spaces.push({ label: 'user', kind: 'user', aiDir: path.join(path.resolve(user), '.ai'), rank: 1 });
  const bundles = bundlesAsGiven(opts.systemBundles);
  if (opts.includeDefaultBundle !== false && !bundles.some((b) => b.id === DEFAULT_BUNDLE.id))
    bundles.push(DEFAULT_BUNDLE);
  const seen = new Set<string>();
  for (const b of bundles) {
    if (seen.has(b.id))
      throw new InvalidArgumentError(`system bundle ${shown(b.id)} is given twice`, {
        hint: 'give each bundle id once',
      });
    seen.add(b.id);
    spaces.push({
      label: `system:${b.id}`,
      kind: 'system',
      aiDir: path.join(path.resolve(b.root), '.ai'),
      rank: 2,
      bundleId: b.id,
    });
  }
  return spaces;
}

const BUNDLE_HINT = 'give bundles as a list of { id, root } with an id of letters, digits, . _ @ -';

/**
 * The caller's system bundles, checked and each read once (what is checked is what is used,
 * whatever their getters return next; what they throw is refused with a code).
 */
function bundlesAsGiven(given: unknown): SystemBundle[] {
  if (given === undefined || given === null) return [];
  if (!Array.isArray(given))
    throw new InvalidArgumentError(`systemBundles must be a list, got ${shown(given)}`, { hint: BUNDLE_HINT });
  return readingTheirs('the system bundles', () =>
    copiedList(given, 'systemBundles').map((b: unknown) => {
      const { id, root } = b && typeof b === 'object' ? (b as Record<string, unknown>) : {};
      if (typeof id !== 'string' || !/^[A-Za-z0-9._@-]+$/.test(id))
        throw new InvalidArgumentError(`invalid system bundle ${shown(b)}`, { hint: BUNDLE_HINT });
      if (!isPath(root))
        throw new InvalidArgumentError(`system bundle ${shown(id)}: root must be ${PATH_RULE}, got ${shown(root)}`, {
          hint: "pass the directory that holds the bundle's .ai/",
        });
      return { id, root };
    }),
  );
}

/** A space's label from what a result or a fetch shows (`source` and `bundle`): `sourceOf` undone. */
export function spaceLabel<S extends string | undefined>(source: S, bundle?: string): string | S {
  return bundle ? `system:${bundle}` : source;
}

/** The `source` a result shows: system labels collapse to `system` (the seeds' convention). */
export function sourceOf(label: string): string {
  return label.startsWith('system') ? 'system' : label;
}

/** Which spaces a `space`/`source` value selects. */
/**
 * The space a request names: `space` (rye_search's name) or `source` (rye_fetch's), one filter
 * under two names, both only when they agree. The facades call this once per request; the CLI and
 * MCP pass both names through untouched.
 */
export function requestedSpace(args: { space?: unknown; source?: unknown }): string | undefined {
  const { space, source } = args;
  for (const [name, value] of [
    ['space', space],
    ['source', source],
  ] as const) {
    if (value !== undefined && value !== null && typeof value !== 'string')
      throw new InvalidArgumentError(`${name} must be a string`, { hint: 'use all, project, user or system' });
    if (typeof value === 'string') wellFormed(value, name);
  }
  if (typeof space === 'string' && typeof source === 'string' && space !== source) {
    throw new InvalidArgumentError(`space ${shown(space)} and source ${shown(source)} disagree`, {
      hint: 'give one of them',
    });
  }
  return (space ?? source ?? undefined) as string | undefined;
}

export function selectSpaces(spaces: Space[], space: string): Space[] {
  switch (space) {
    case 'registry':
      throw new InvalidArgumentError('no registry is configured', {
        hint: 'use a local source: project, user or system',
      });
    case 'all':
    case 'local':
      return spaces;
    case 'project':
    case 'user':
    case 'system':
      return spaces.filter((s) => s.kind === space);
    default:
      if (space.startsWith('system:')) {
        const found = spaces.filter((s) => s.label === space);
        if (found.length) return found;
      }
      throw new InvalidArgumentError(`unknown space ${shown(space)}`, { hint: spaceHint(spaces) });
  }
}

/** Bundles an unknown space's hint names; the rest are counted (an environment may add thousands). */
const NAMED_BUNDLES = 10;

function spaceHint(spaces: Space[]): string {
  const bundles = spaces.filter((s) => s.kind === 'system').map((s) => s.label);
  if (!bundles.length)
    return 'use all, project, user or system (no system bundle is configured: --bundle, RYE_SYSTEM_BUNDLES)';
  const more = bundles.length - NAMED_BUNDLES;
  const named = bundles.slice(0, NAMED_BUNDLES).join(', ');
  return `use all, project, user, system or one of ${named}${more > 0 ? ` and ${more} more` : ''}`;
}
