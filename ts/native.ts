/**
 * Loads the generated napi-rs binding and translates its errors into typed errors.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { isMainThread } from 'node:worker_threads';

import { allocatorRefusal } from './allocator-env.js';
import { fromNative, RyeSearchError } from './errors.js';

type Binding = typeof import('../native/binding.cjs');
export type NativeIndex = InstanceType<Binding['NativeIndex']>;
export type NativeBatch = InstanceType<Binding['NativeBatch']>;

let binding: Binding | undefined;

function load(): Binding {
  if (binding) return binding;
  const refusal = allocatorRefusal();
  if (refusal) {
    throw new RyeSearchError('E_NATIVE_UNAVAILABLE', `${refusal} leaves the native allocator (mimalloc) no memory`, {
      hint: `unset ${refusal}, or reserve memory for it with MIMALLOC_RESERVE_OS_MEMORY (loading with it as it is would abort the process)`,
    });
  }
  const require = createRequire(import.meta.url);
  try {
    binding = require('../native/binding.cjs') as Binding;
  } catch (cause) {
    const platform = `${process.platform}-${process.arch}`;
    throw new RyeSearchError('E_NATIVE_UNAVAILABLE', `no rye-search native binary for ${platform}`, {
      hint:
        'install the matching optional package (npm install rye-search again with optional dependencies enabled), ' +
        'build from source with `npm run build:native` (needs cargo), or point NAPI_RS_NATIVE_LIBRARY_PATH at a built .node file',
      cause,
    });
  }
  loadModel(binding);
  useEncoder(binding);
  // The process's exit waits for the native work in flight: a batch's searches not yet begun are
  // then skipped. (A worker's exit ends neither the process nor its other threads' batches.)
  const loaded = binding;
  if (isMainThread) process.once('exit', () => loaded.stopBatches());
  return binding;
}

let modelIdentity = 'none';

/**
 * The loaded embedding model's identity (dimensions, tokens, a hash of its bytes), or `none`: an
 * index on disk is kept per model, so its vectors are never another model's, nor missing because
 * an earlier process ran without one.
 */
export function embeddingModel(): string {
  load();
  return modelIdentity;
}

/** The index schema version the native build writes (part of an index folder's name). */
export function schemaVersion(): number {
  return native((b) => b.schemaVersion());
}

let limits: { idBytes: number; keyBytes: number } | undefined;

/** The most UTF-8 bytes a document's id and key may have (the index finds no longer one again). */
export function documentLimits(): { idBytes: number; keyBytes: number } {
  limits ??= native((b) => b.documentLimits());
  return limits;
}

/** The embedding model the package ships; `RYE_SEARCH_MODEL` names another file, or `off`. */
export const DEFAULT_MODEL = fileURLToPath(new URL('../model/minilm-static-256.rye-embed', import.meta.url));

/**
 * Loads the embedding model once per process. Without it (file missing, damaged, or turned off)
 * every search runs as keyword search and says so in its warnings: never a failure.
 */
function loadModel(b: Binding): void {
  const file = process.env.RYE_SEARCH_MODEL || DEFAULT_MODEL;
  if (file === 'off') return;
  try {
    modelIdentity = b.loadModel(file);
  } catch (err) {
    const why = fromNative(err);
    process.stderr.write(`rye-search: semantic search is off (keyword only): ${(why as Error).message}\n`);
  }
}

/** The sentence encoder the package ships; `RYE_SEARCH_ENCODER` names another file, or `off`. */
export const DEFAULT_ENCODER = fileURLToPath(new URL('../model/minilm-l6.rye-encoder', import.meta.url));

/**
 * Names the sentence encoder indexes encode their items with in the background (read by the
 * first index that does, never here: nothing waits for it). Where it cannot be read, the static
 * model goes on answering, the index's `semanticStatus()` says why, and one line goes to stderr.
 */
function useEncoder(b: Binding): void {
  const file = process.env.RYE_SEARCH_ENCODER || DEFAULT_ENCODER;
  b.useEncoder(file === 'off' ? null : file);
}

/** Calls into native code, rethrowing its errors as typed errors. */
export function native<T>(fn: (b: Binding) => T): T {
  try {
    return fn(load());
  } catch (err) {
    throw fromNative(err);
  }
}

export async function nativeAsync<T>(fn: (b: Binding) => Promise<T>): Promise<T> {
  try {
    return await fn(load());
  } catch (err) {
    throw fromNative(err);
  }
}
