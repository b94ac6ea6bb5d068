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
 * name any number of projects. The least recently used one is closed past this.
 */
const MAX_OPEN_INDEXES = 8;

export class McpContext {
  /** In use order: the most recently used last. */
  private readonly indexes = new Map<string, Promise<RyeIndex>>();

  constructor(readonly options: McpContextOptions) {}

  log(line: string): void {
    (this.options.log ?? ((l: string) => process.stderr.write(`${l}\n`)))(line);
  }

  /** The refreshed index for a project (or for no project: user and system spaces only). */
  async index(projectPath: string | undefined): Promise<RyeIndex> {
    const project = projectPath ?? this.options.defaultProject;
    const key = project ? checkProjectDir(project) : '';
    let pending = this.indexes.get(key);
    if (pending) {
      this.indexes.delete(key);
    } else {
      pending = openIndex({ ...this.options, projectPath: project, refresh: false });
      pending.catch(() => this.indexes.delete(key));
    }
    this.indexes.set(key, pending);
    while (this.indexes.size > MAX_OPEN_INDEXES) {
      const [oldest, evicted] = this.indexes.entries().next().value as [string, Promise<RyeIndex>];
      this.indexes.delete(oldest);
      void evicted.then((i) => i.close()).catch(() => undefined);
    }
    const index = await pending;
    const report = await index.refresh();
    if (report.added || report.updated || report.removed) {
      this.log(
        `rye-search: index ${key || '(no project)'}: ${report.added} added, ${report.updated} updated, ${report.removed} removed`,
      );
    }
    return index;
  }

  async close(): Promise<void> {
    for (const pending of this.indexes.values()) await (await pending.catch(() => undefined))?.close();
    this.indexes.clear();
  }
}
