/**
 * The sentence-encoder tier of an index: items are encoded in the background while the static
 * model answers (see crates/rye-search-core/src/index/encoding.rs); this starts it, reports it,
 * and waits for it. Shared by `RyeIndex` and `MemoryIndex`.
 */
import os from 'node:os';

import { RyeSearchError, shown } from './errors.js';
import { onlyKnown } from './validate.js';
import type { NativeIndex } from './native.js';
import type { VectorTier } from './wire.js';

/** Where an index's semantic search stands. */
export interface SemanticStatus {
  /** The vectors searches by meaning use now (`none`: no model loaded, keyword only). */
  vectors: VectorTier | 'none';
  encoder: {
    /** `loading` (reading the encoder), `encoding`, `settled` (searches use it) or `off`. */
    state: 'loading' | 'encoding' | 'settled' | 'off';
    /** Items with an encoder vector, of `total` with text to encode. */
    encoded: number;
    total: number;
    /** Why the encoder is off. */
    error?: string;
  };
}

export interface ReadyOptions {
  /** `full`: wait until every item has its encoder vector (or the encoder is off). */
  semantic?: 'full';
  /** Give up after this many milliseconds (default: no limit) with `E_TIMEOUT`. */
  timeoutMs?: number;
}

const READY_OPTION_NAMES: ReadonlySet<string> = new Set<keyof ReadyOptions>(['semantic', 'timeoutMs']);

/**
 * Threads the background encoding may use (each at a lower priority): `RYE_SEARCH_ENCODER_THREADS`,
 * else every core up to four.
 */
export function encoderThreads(): number {
  const given = Number(process.env.RYE_SEARCH_ENCODER_THREADS);
  if (Number.isInteger(given) && given >= 1) return Math.min(given, 64);
  return Math.max(1, Math.min(4, os.availableParallelism()));
}

/** Starts the index's background encoding (unless the encoder is off, when it reports so). */
export function startEncoding(index: NativeIndex): void {
  index.encodeInBackground(encoderThreads());
}

let warned = false;

export function semanticStatus(index: NativeIndex, staticModel: boolean): SemanticStatus {
  const s = index.encodingStatus();
  const encoder: SemanticStatus['encoder'] = s
    ? { state: s.state as SemanticStatus['encoder']['state'], encoded: s.encoded, total: s.total }
    : { state: 'off', encoded: 0, total: 0, error: 'not started (encode: false): ready() starts it' };
  if (s?.error) encoder.error = s.error;
  // A failure is said once; an encoder turned off or an index closed is no failure.
  const failed =
    s?.error !== undefined && s.error !== null && !s.error.includes('=off') && !s.error.startsWith('stopped:');
  if (encoder.state === 'off' && failed && !warned) {
    warned = true;
    process.stderr.write(`rye-search: the sentence encoder is off, the static model answers: ${encoder.error}\n`);
  }
  const vectors = encoder.state === 'settled' ? 'encoder' : staticModel ? 'static' : 'none';
  return { vectors, encoder };
}

/** Resolves once `opts` is met (at once without `semantic`), with the status then. */
export async function ready(
  status: () => SemanticStatus,
  opts: ReadyOptions = {},
  closed: () => boolean = () => false,
): Promise<SemanticStatus> {
  if (opts === null || typeof opts !== 'object' || Array.isArray(opts))
    throw new RyeSearchError('E_INVALID_ARGUMENT', `ready takes an object of options, got ${shown(opts)}`, {
      hint: 'await index.ready(), or index.ready({ semantic: "full" })',
    });
  // `{ semantics: 'full' }` returned at once, as if every item had its vector.
  onlyKnown(opts, READY_OPTION_NAMES, 'ready');
  if (opts.semantic !== undefined && opts.semantic !== 'full') {
    throw new RyeSearchError('E_INVALID_ARGUMENT', `ready: semantic must be "full", not ${shown(opts.semantic)}`, {
      hint: 'await index.ready({ semantic: "full" })',
    });
  }
  const limit = opts.timeoutMs;
  if (limit !== undefined && !(typeof limit === 'number' && limit >= 0)) {
    throw new RyeSearchError('E_INVALID_ARGUMENT', 'ready: timeoutMs must be a number of milliseconds ≥ 0', {
      hint: 'await index.ready({ semantic: "full", timeoutMs: 600000 })',
    });
  }
  const start = Date.now();
  for (let wait = 10; ; wait = Math.min(wait * 2, 250)) {
    const now = status();
    if (opts.semantic === undefined || now.encoder.state === 'settled' || now.encoder.state === 'off' || closed()) {
      return now;
    }
    if (limit !== undefined && Date.now() - start >= limit) {
      throw new RyeSearchError(
        'E_TIMEOUT',
        `the sentence encoder has encoded ${now.encoder.encoded} of ${now.encoder.total} items after ${limit} ms`,
        { hint: 'wait longer (timeoutMs), or search now: the static model answers meanwhile' },
      );
    }
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}
