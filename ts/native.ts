/**
 * Loads the generated napi-rs binding and translates its errors into typed errors.
 */
import { createRequire } from 'node:module';

import { fromNative, RyeSearchError } from './errors.js';

type Binding = typeof import('../native/binding.cjs');
export type NativeIndex = InstanceType<Binding['NativeIndex']>;
export type NativeBatch = InstanceType<Binding['NativeBatch']>;

let binding: Binding | undefined;

function load(): Binding {
  if (binding) return binding;
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
  return binding;
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
