/** Options shared by the commands, and how they become API options. */
import fs from 'node:fs';
import path from 'node:path';

import { InvalidArgumentError, shown } from '../errors.js';
import type { OpenIndexOptions } from '../rye-index.js';
import { bundlesFromEnv, checkProjectDir, parseBundleSpec } from '../spaces.js';

export const COMMON_OPTIONS = {
  project: { type: 'string' },
  'user-space': { type: 'string' },
  bundle: { type: 'string', multiple: true },
  'no-default-bundle': { type: 'boolean' },
  'cache-dir': { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export interface CommonValues {
  project?: string;
  'user-space'?: string;
  bundle?: string[];
  'no-default-bundle'?: boolean;
  'cache-dir'?: string;
  json?: boolean;
}

export const COMMON_HELP = `  --project DIR        project that holds .ai/ (default: the current directory if it has .ai/)
  --user-space DIR     directory that holds the user's .ai/ (default: $USER_SPACE, else home)
  --bundle ID=DIR      add a system bundle (repeatable; also $RYE_SYSTEM_BUNDLES)
  --no-default-bundle  leave out the package's own documentation bundle
  --cache-dir DIR      where indexes live (default: $RYE_SEARCH_CACHE_DIR or ~/.cache/rye-search)
  --json               machine-readable output`;

/** The project: `--project`, else the current directory when it has a `.ai/`. */
function projectOf(values: CommonValues): string | undefined {
  if (values.project) {
    return checkProjectDir(values.project);
  }
  return fs.existsSync(path.join(process.cwd(), '.ai')) ? process.cwd() : undefined;
}

export function openOptions(values: CommonValues): OpenIndexOptions {
  return {
    projectPath: projectOf(values),
    userSpace: values['user-space'],
    cacheDir: values['cache-dir'],
    systemBundles: [...(values.bundle ?? []).map(parseBundleSpec), ...bundlesFromEnv()],
    includeDefaultBundle: !values['no-default-bundle'],
    // One refresh per command: watching would only cost time.
    watch: false,
  };
}

export function integerArg(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^-?\d+$/.test(value.trim()))
    throw new InvalidArgumentError(`--${name} must be a whole number, got ${shown(value)}`, {
      hint: `e.g. --${name} 10`,
    });
  return Number(value);
}

export function numberArg(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  // Written so that no two parts can match the same characters: `\d*\.?\d+` backtracked over
  // every split of a long run of digits (20,000 digits and an `x`: seconds).
  if (!/^\s*(?:\d+(?:\.\d+)?|\.\d+)\s*$/.test(value))
    throw new InvalidArgumentError(`--${name} must be a number, got ${shown(value)}`, { hint: `e.g. --${name} 0.3` });
  return Number(value);
}

/** `k=v` pairs; a key given twice (or `k=a,b`) becomes a list. */
export function pairs(list: string[] | undefined, name: string, split = false): Record<string, string | string[]> {
  // Keys are the user's: `constructor` or `__proto__` must be keys like any other.
  const out: Record<string, string | string[]> = Object.create(null);
  for (const item of list ?? []) {
    const eq = item.indexOf('=');
    if (eq <= 0)
      throw new InvalidArgumentError(`--${name} must be KEY=VALUE, got ${shown(item)}`, {
        hint: `e.g. --${name} category=core`,
      });
    const key = item.slice(0, eq).trim();
    const values = split ? item.slice(eq + 1).split(',') : [item.slice(eq + 1)];
    const prev = out[key];
    const merged = [...(prev === undefined ? [] : Array.isArray(prev) ? prev : [prev]), ...values];
    out[key] = merged.length === 1 ? merged[0]! : merged;
  }
  return out;
}
