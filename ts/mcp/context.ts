/**
 * What the MCP tools share: one open index per project, kept across calls and refreshed before
 * each call (only directories where a watcher saw a change are read again), so an item edited on
 * disk is found by the next call.
 */

import { openIndex, type OpenIndexOptions, type RyeIndex } from '../rye-index.js';
import { checkProjectDir } from '../spaces.js';

export interface McpContextOptions extends Omit<OpenIndexOptions, 'projectPath' | 'refresh'> {
  /** Project used when a call gives no project_path. */
  defaultProject?: string;
  /** Log line sink (stderr); stdout belongs to the protocol. */
  log?: (line: string) => void;
}

/**
 * Open indexes kept at once: each holds a native index, watchers and caches, and a client can
 * name any number of projects. Past this the least recently used idle one is closed; one a call
 * is still using is closed when its last call ends, never under it.
 */
export const MAX_OPEN_INDEXES = 8;

interface Entry {
  index: Promise<RyeIndex>;
  /** Calls using it now. */
  users: number;
  /** Evicted while in use: closed by its last user. */
  evicted: boolean;
}

export class McpContext {
  /** In use order: the most recently used last. */
  private readonly entries = new Map<string, Entry>();
  /** Evicted while calls use them: closed by their last user, unless asked for again first. */
  private readonly busyEvicted = new Map<string, Entry>();

  constructor(readonly options: McpContextOptions) {}

  log(line: string): void {
    (this.options.log ?? ((l: string) => process.stderr.write(`${l}\n`)))(line);
  }

  /**
   * Runs `use` with the refreshed index of a project (or of no project: user and system spaces
   * only). The index stays open until `use` settles, whatever other calls open meanwhile.
   */
  async withIndex<T>(projectPath: string | undefined, use: (index: RyeIndex) => Promise<T>): Promise<T> {
    const project = projectPath ?? this.options.defaultProject;
    const key = project ? checkProjectDir(project) : '';
    // One index per project in the process: one evicted while in use is taken back.
    let entry = this.entries.get(key) ?? this.busyEvicted.get(key);
    if (entry) {
      this.entries.delete(key);
      this.busyEvicted.delete(key);
      entry.evicted = false;
    } else {
      // Its own options (the default project, the log) are not openIndex's.
      const { defaultProject: _project, log: _log, ...open } = this.options;
      const index = openIndex({ ...open, projectPath: project || undefined, refresh: false });
      const opened: Entry = { index, users: 0, evicted: false };
      index.catch(() => this.entries.get(key) === opened && this.entries.delete(key));
      entry = opened;
    }
    this.entries.set(key, entry);
    entry.users++;
    try {
      this.evictIdle();
      const index = await entry.index;
      const report = await index.refresh();
      if (report.added || report.updated || report.removed) {
        this.log(
          `rye-search: index ${key || '(no project)'}: ${report.added} added, ${report.updated} updated, ${report.removed} removed`,
        );
      }
      return await use(index);
    } finally {
      entry.users--;
      if (entry.evicted && entry.users === 0) {
        this.busyEvicted.delete(key);
        close(entry);
      }
    }
  }

  /** Closes the least recently used entries past the limit: idle ones now, busy ones when released. */
  private evictIdle(): void {
    for (const [key, entry] of this.entries) {
      if (this.entries.size <= MAX_OPEN_INDEXES) break;
      this.entries.delete(key);
      entry.evicted = true;
      if (entry.users === 0) close(entry);
      else this.busyEvicted.set(key, entry);
    }
  }

  async close(): Promise<void> {
    for (const entry of [...this.entries.values(), ...this.busyEvicted.values()])
      await (await entry.index.catch(() => undefined))?.close();
    this.entries.clear();
    this.busyEvicted.clear();
  }
}

function close(entry: Entry): void {
  void entry.index.then((i) => i.close()).catch(() => undefined);
}
