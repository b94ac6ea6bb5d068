/**
 * Signing (the inverse of trust.ts): used by the bundle re-sign script and by tests that need
 * real signed fixtures. Produces v1 or v2 signature lines with node:crypto Ed25519.
 */
import { createHash, createPublicKey, sign as edSign, type KeyObject } from 'node:crypto';

import type { Kind } from '../scope.js';
import { signatureLineIndex, splitLine, withoutSignature } from './signature.js';
import { v1Content, v1KeyId, v2KeyId } from './trust.js';

const COMMENT: Record<string, [string, string]> = {
  '.md': ['<!--', ' -->'],
  '.js': ['//', ''],
  '.ts': ['//', ''],
  '.mjs': ['//', ''],
  '.cjs': ['//', ''],
};

export interface SignOptions {
  generation?: 1 | 2;
  /** Fixed timestamp (tests); default now. */
  timestamp?: string;
}

/** Public key PEM as the trust store expects it. */
export function publicPem(privateKey: KeyObject): string {
  return createPublicKey(privateKey).export({ format: 'pem', type: 'spki' }).toString();
}

export function rawPublicKey(privateKey: KeyObject): Buffer {
  const der = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  return der.subarray(der.length - 32);
}

/** Returns the text with a fresh signature line (any old one is replaced). */
export function signText(
  text: string,
  kind: Kind | 'config',
  ext: string,
  privateKey: KeyObject,
  opts: SignOptions = {},
): string {
  const generation = opts.generation ?? 2;
  const body = withoutSignature(text, ext);
  const [open, close] = COMMENT[ext] ?? ['#', ''];
  const ts = opts.timestamp ?? new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  const shebang = signatureLineIndex(body) === 1 && ext !== '.md';
  const [first, rest] = shebang ? splitLine(body) : ['', body];
  // What the signature covers is computed on the final layout (line + content).
  const placeholderLine = `${open} rye:signed:PLACEHOLDER${close}`;
  const layout = shebang ? `${first}\n${placeholderLine}\n${rest}` : `${placeholderLine}\n${rest}`;
  const covered = generation === 1 ? v1Content(kind, layout) : rest;
  if (covered === undefined) throw new Error('a directive needs a <directive> element to be signed');
  const hash = createHash('sha256').update(covered).digest('hex');
  const sig = edSign(null, Buffer.from(hash, 'ascii'), privateKey);
  const keyId = generation === 1 ? v1KeyId(publicPem(privateKey)) : v2KeyId(rawPublicKey(privateKey));
  const sigText = generation === 1 ? sig.toString('base64url') : sig.toString('base64');
  const line = `${open} rye:signed:${ts}:${hash}:${sigText}:${keyId}${close}`;
  return shebang ? `${first}\n${line}\n${rest}` : `${line}\n${rest}`;
}

/** A v1 (`[public_key] pem`) or v2 (`public_key = "ed25519:…"`) trust file for a key. */
export function trustFile(privateKey: KeyObject, owner: string, generation: 1 | 2 = 2): { name: string; text: string } {
  if (generation === 1) {
    const pem = publicPem(privateKey);
    const fp = v1KeyId(pem);
    return {
      name: `${fp}.toml`,
      text: `version = "1.0.0"\ncategory = "keys/trusted"\nfingerprint = "${fp}"\nowner = "${owner}"\nattestation = ""\n\n[public_key]\npem = """\n${pem.trim()}\n"""\n`,
    };
  }
  const raw = rawPublicKey(privateKey);
  const fp = v2KeyId(raw);
  return {
    name: `${fp}.toml`,
    text: `public_key = "ed25519:${raw.toString('base64')}"\nfingerprint = "${fp}"\nowner = "${owner}"\n`,
  };
}
