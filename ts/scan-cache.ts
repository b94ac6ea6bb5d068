/**
 * Directory listings kept between refreshes and invalidated by `fs.watch`, so a refresh re-reads
 * only the directories where something changed instead of walking and stat'ing the whole tree.
 *
 * Watchers are hints, never the only truth: a directory that cannot be watched is read on every
 * scan, and every listing is dropped (a full scan) after a burst of events — the kernel's event
 * queue may have overflowed — and when the last full scan is older than `fullScanMs`, for file
 * systems that send no events (network mounts).
 */
import fs from 'node:fs';

import type { Listing, ScanCache } from './discovery.js';

/** More events than this between two scans: read everything again. */
const EVENT_BURST = 1000;
const FULL_SCAN_MS = 60_000;

interface Entry {
  watcher?: fs.FSWatcher;
  listing?: Listing;
}

export class WatchedScanCache implements ScanCache {
  private readonly entries = new Map<string, Entry>();
  /** Each space's `.ai` folder as last seen (see `root`). */
  private readonly roots = new Map<string, string>();
  private events = 0;
  private lastFull = -Infinity;

  constructor(private readonly fullScanMs = FULL_SCAN_MS) {}

  /** Lets pending watcher events arrive, then decides whether this scan reads everything. */
  async beginScan(): Promise<void> {
    // Events the kernel has queued are delivered in the event loop's poll phase. Called from a
    // poll-phase callback, the first immediate runs in this same iteration, before any new poll;
    // the second runs only after a full poll: then every change made before this call is known.
    for (let i = 0; i < 2; i++) await new Promise((resolve) => setImmediate(resolve));
    const now = performance.now();
    if (this.events > EVENT_BURST || now - this.lastFull > this.fullScanMs) {
      for (const e of this.entries.values()) e.listing = undefined;
      this.lastFull = now;
    }
    this.events = 0;
  }

  listing(key: string): Listing | undefined {
    return this.entries.get(key)?.listing;
  }

  watch(key: string, dir: string): void {
    let entry = this.entries.get(key);
    if (!entry) {
      entry = {};
      this.entries.set(key, entry);
    }
    if (entry.watcher) return;
    try {
      // Not persistent: an open index must not keep the process alive.
      // A 'rename' may be the directory's own removal or move, after which its watcher hears
      // nothing more (a new directory made at the path was never watched, and its listing was
      // kept): the next scan watches whatever is at the path then, and reads it.
      const watcher = fs.watch(dir, { persistent: false }, (event) =>
        event === 'rename' ? this.unwatch(entry) : this.changed(entry),
      );
      watcher.on('error', () => this.unwatch(entry));
      entry.watcher = watcher;
    } catch {
      // Missing, unreadable, or out of watches (ENOSPC): this directory is read on every scan.
    }
  }

  remember(key: string, listing: Listing): void {
    const entry = this.entries.get(key);
    if (entry?.watcher) entry.listing = listing;
  }

  forget(key: string): void {
    this.entries.get(key)?.watcher?.close();
    this.entries.delete(key);
  }

  keepOnly(reached: Set<string>): void {
    for (const [key, entry] of this.entries) {
      if (reached.has(key)) continue;
      entry.watcher?.close();
      this.entries.delete(key);
    }
  }

  root(prefix: string, identity: string): void {
    const before = this.roots.get(prefix);
    this.roots.set(prefix, identity);
    if (before === undefined || before === identity) return;
    for (const key of [...this.entries.keys()]) if (key.startsWith(prefix)) this.forget(key);
  }

  close(): void {
    for (const e of this.entries.values()) e.watcher?.close();
    this.entries.clear();
  }

  private changed(entry: Entry): void {
    entry.listing = undefined;
    this.events++;
  }

  private unwatch(entry: Entry): void {
    entry.watcher?.close();
    entry.watcher = undefined;
    entry.listing = undefined;
    this.events++;
  }
}
