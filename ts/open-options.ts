/**
 * What `openIndex` takes, and the check of every option's value (one place: a wrong value is one
 * `E_INVALID_ARGUMENT` naming the option, with a hint, before anything is opened).
 */
import { InvalidArgumentError, shown } from './errors.js';
import type { Progress } from './indexer.js';
import { MAX_WRITER_WAIT_MS, WRITER_WAIT_MS } from './indexer.js';
import { DEFAULT_MAX_FILE_BYTES, MAX_FILE_BYTES_CAP } from './items.js';
import type { SystemBundle } from './spaces.js';
import { isPath, onlyKnown, PATH_RULE } from './validate.js';

export interface OpenIndexOptions {
  /** Directory that holds the project's `.ai/` (optional: without it only user and system spaces). */
  projectPath?: string;
  /** Directory that holds the user's `.ai/` (default `USER_SPACE`, else the home directory). */
  userSpace?: string;
  /** Where indexes are kept (default `RYE_SEARCH_CACHE_DIR`, else `~/.cache/rye-search`). */
  cacheDir?: string;
  /** System bundles in precedence order; the package's own bundle is added after them. */
  systemBundles?: SystemBundle[];
  includeDefaultBundle?: boolean;
  /** Files larger than this are skipped (default 1 MiB). */
  maxFileBytes?: number;
  /** Refresh on open (default true). */
  refresh?: boolean;
  /**
   * How long a refresh waits for another process that is writing the same index (default 10,000
   * ms), then starts again from what that process committed. Past it, searches answer from the
   * last commit with a warning; a first build still under way is `E_INDEX_LOCKED`.
   */
  writerWaitMs?: number;
  /**
   * Watch the spaces' directories so that a refresh reads only those that changed (a full scan
   * still runs at least once a minute). Default on Linux only: inotify queues an event before the
   * write that caused it returns, so a refresh right after an edit sees it; macOS delivers events
   * late and Windows keeps watched directories from being deleted. Off for one-shot use.
   */
  watch?: boolean;
  /**
   * Encode the items with the sentence encoder in the background from the start (default true).
   * With `false`, encoding starts at the first `ready()`: one-off commands that may not search
   * by meaning do not read the encoder.
   */
  encode?: boolean;
  onProgress?: (p: Progress) => void;
}

type Check = (value: unknown) => boolean;

const flag: Check = (v) => typeof v === 'boolean';

/** Each option whose value is checked here (system bundles are checked as spaces are resolved). */
const CHECKS: { [K in keyof OpenIndexOptions]?: [Check, string, string] } = {
  projectPath: [isPath, PATH_RULE, 'pass the directory that holds .ai/'],
  userSpace: [isPath, PATH_RULE, "pass the directory that holds the user's .ai/"],
  cacheDir: [isPath, PATH_RULE, 'omit it for RYE_SEARCH_CACHE_DIR or ~/.cache/rye-search'],
  includeDefaultBundle: [flag, 'true or false', "pass false to leave the package's own documentation out"],
  refresh: [flag, 'true or false', 'pass refresh: false to open without refreshing'],
  watch: [flag, 'true or false', 'pass watch: false to walk the spaces on every refresh'],
  encode: [flag, 'true or false', 'pass encode: false to start encoding at the first ready()'],
  maxFileBytes: [
    (v) => Number.isInteger(v) && (v as number) >= 1 && (v as number) <= MAX_FILE_BYTES_CAP,
    `a whole number of bytes from 1 to ${MAX_FILE_BYTES_CAP}`,
    `omit it for the default cap of ${DEFAULT_MAX_FILE_BYTES} bytes`,
  ],
  writerWaitMs: [
    (v) => typeof v === 'number' && v >= 0 && v <= MAX_WRITER_WAIT_MS,
    `a number of milliseconds from 0 to ${MAX_WRITER_WAIT_MS}`,
    `omit it to wait ${WRITER_WAIT_MS} ms for another process's writer`,
  ],
  onProgress: [(v) => typeof v === 'function', 'a function', 'pass (progress) => { … }, or omit it'],
};

/** Every option `openIndex` takes. */
const OPTION_NAMES: ReadonlySet<string> = new Set<keyof OpenIndexOptions>([
  ...(Object.keys(CHECKS) as (keyof OpenIndexOptions)[]),
  'systemBundles',
]);

export function checkOpenOptions(opts: OpenIndexOptions): void {
  if (opts === null || typeof opts !== 'object' || Array.isArray(opts)) {
    throw new InvalidArgumentError(`openIndex takes an object of options, got ${shown(opts)}`, {
      hint: "pass { projectPath: '/path/to/project' }",
    });
  }
  // `{ project: dir }` opened an index without the project, and its searches said nothing.
  onlyKnown(opts, OPTION_NAMES, 'openIndex');
  for (const [name, [ok, what, hint]] of Object.entries(CHECKS) as [string, [Check, string, string]][]) {
    const value = (opts as Record<string, unknown>)[name];
    if (value !== undefined && !ok(value)) {
      throw new InvalidArgumentError(`${name} must be ${what}, got ${shown(value)}`, { hint });
    }
  }
}
