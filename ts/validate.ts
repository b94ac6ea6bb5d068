/**
 * Checks shared by the option and document validators: input the native side cannot take gets
 * a clear error here, not a JSON error from deep inside.
 */
import { InvalidArgumentError } from './errors.js';

/** A UTF-16 surrogate without its pair: JSON cannot carry it to the native side as text. */
const LONE_SURROGATE = /\p{Cs}/u;

/** Returns `text` when it is well-formed UTF-16, else throws naming `what` and the position. */
export function wellFormed(text: string, what: string): string {
  const bad = LONE_SURROGATE.exec(text);
  if (bad) {
    throw new InvalidArgumentError(`${what} has an unpaired UTF-16 surrogate at position ${bad.index}`, {
      hint: 'pass valid Unicode text (String.prototype.toWellFormed() replaces unpaired surrogates)',
    });
  }
  return text;
}
