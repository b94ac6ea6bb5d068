/**
 * What the MCP tools share: one open index per project, kept across calls and refreshed before
 * each call (only directories where a watcher saw a change are read again), so an item edited on
 * disk is found by the next call.
 */
import path from 'node:path';

import { openIndex, type OpenIndexOptions, type RyeIndex } from '../rye-index.js';

export interface McpContextOptions extends Omit<OpenIndexOptions, 'projectPath' | 'refresh'> {
  /** Project used when a call gives no project_path. */
  defaultProject?: string;
  /** Log line sink (stderr); stdout belongs to the protocol. */
  log?: (line: string) => void;
}

export class McpContext {
  private readonly indexes = new Map<string, Promise<RyeIndex>>();

  constructor(readonly options: McpContextOptions) {}

  log(line: string): void {
    (this.options.log ?? ((l: string) => process.stderr.write(`${l}\n`)))(line);
  }

  /** The refreshed index for a project (or for no project: user and system spaces only). */
  async index(projectPath: string | undefined): Promise<RyeIndex> {
    const project = projectPath ?? this.options.defaultProject;
    const key = project ? path.resolve(project) : '';
    let pending = this.indexes.get(key);
    if (!pending) {
      pending = openIndex({ ...this.options, projectPath: project, refresh: false });
      this.indexes.set(key, pending);
      pending.catch(() => this.indexes.delete(key));
    }
    const index = await pending;
    const report = await index.refresh();
    if (report.added || report.updated || report.removed) {
      this.log(`rye-search: index ${key || '(no project)'}: ${report.added} added, ${report.updated} updated, ${report.removed} removed`);
    }
    return index;
  }

  async close(): Promise<void> {
    for (const pending of this.indexes.values()) await (await pending.catch(() => undefined))?.close();
    this.indexes.clear();
  }
}
