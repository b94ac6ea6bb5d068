/**
 * Signature verification (v1 and v2) with node:crypto Ed25519, and the trust store read from
 * `.ai/config/keys/trusted/*.toml` of every space. A trusted key is trusted in both
 * generations: its v1 id (16 hex of SHA-256 of the PEM) and v2 id (SHA-256 of the raw key)
 * are both derived from the key itself, whichever file format introduced it.
 */
import { createHash, createPublicKey, verify as edVerify, type KeyObject } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

import { parse as parseToml } from 'smol-toml';

import { parseFailure } from '../errors.js';
import type { INTEGRITIES } from '../items.js';
import { MAX_CONFIG_BYTES, readRegularFile } from '../read-file.js';
import type { Kind } from '../scope.js';
import { readSignature, splitLine, type SignatureLine } from './signature.js';
import type { Space } from '../spaces.js';

export type Integrity = (typeof INTEGRITIES)[number];

export interface Verification {
  /** True exactly when `integrity` is `verified`. */
  signed: boolean;
  integrity: Integrity;
  /** Human-readable reason when not verified. */
  reason?: string;
  keyId?: string;
  generation?: 1 | 2;
}

export interface TrustedKey {
  key: KeyObject;
  owner: string;
  file: string;
  v1: string;
  v2: string;
}

/** A parsed key document: its text (for its own signature) and the key it declares. */
interface KeyDocument {
  text: string;
  entry: TrustedKey;
}

export interface IgnoredTrustFile {
  file: string;
  reason: string;
}

const SPKI_ED25519_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');

function rawKey(key: KeyObject): Buffer {
  const der = key.export({ format: 'der', type: 'spki' });
  return der.subarray(der.length - 32);
}

function pemOf(raw: Buffer): string {
  const b64 = Buffer.concat([SPKI_ED25519_PREFIX, raw]).toString('base64');
  return `-----BEGIN PUBLIC KEY-----\n${b64.match(/.{1,64}/g)!.join('\n')}\n-----END PUBLIC KEY-----\n`;
}

/** v1 key id: first 16 hex of SHA-256 over the PEM text (stripped, plus one newline). */
export function v1KeyId(pem: string): string {
  return sha256(`${pem.trim()}\n`).slice(0, 16);
}

/** v2 key id: SHA-256 of the raw 32-byte public key. */
export function v2KeyId(raw: Buffer): string {
  return sha256(raw);
}

export class TrustStore {
  readonly keys = new Map<string, TrustedKey>();
  readonly ignored: IgnoredTrustFile[] = [];

  /**
   * Reads the trust files of the spaces, in precedence order (first file for a key wins). An
   * unsigned key document is trusted (its place in the folder is the user's decision); a signed
   * one only when its signature verifies with its own key or with a key already trusted, in any
   * order of files. Every other file is ignored with its reason.
   */
  static load(spaces: Space[]): TrustStore {
    const store = new TrustStore();
    let signed: KeyDocument[] = [];
    for (const space of spaces) {
      const dir = path.join(space.aiDir, 'config', 'keys', 'trusted');
      let names: string[];
      // Most spaces have no trusted keys: told by an `access` that throws nothing.
      if (!fs.existsSync(dir)) continue;
      try {
        names = fs
          .readdirSync(dir)
          .filter((n) => n.endsWith('.toml'))
          .sort();
      } catch {
        continue;
      }
      for (const name of names) {
        const doc = store.read(path.join(dir, name));
        if (!doc) continue;
        const line = readSignature(doc.text, '.toml');
        if (line.state === 'absent') store.trust(doc.entry);
        else if (line.state === 'malformed')
          store.ignored.push({ file: doc.entry.file, reason: `malformed signature line: ${line.reason}` });
        else signed.push(doc);
      }
    }
    // A signed document may be vouched for by a key another signed document brings.
    for (let progress = true; progress && signed.length; ) {
      progress = false;
      const waiting: KeyDocument[] = [];
      for (const doc of signed) {
        const v = verifyText(doc.text, 'config', '.toml', store.including(doc.entry));
        if (v.integrity === 'verified') {
          store.trust(doc.entry);
          progress = true;
        } else if (v.integrity === 'untrusted') waiting.push(doc);
        else
          store.ignored.push({
            file: doc.entry.file,
            reason: `its signature fails (${v.integrity}): ${v.reason ?? ''}`.trim(),
          });
      }
      signed = waiting;
    }
    for (const doc of signed) {
      const v = verifyText(doc.text, 'config', '.toml', store.including(doc.entry));
      store.ignored.push({
        file: doc.entry.file,
        reason: `signed by key ${v.keyId}, which is not trusted and is not its own`,
      });
    }
    return store;
  }

  /** Reads one trust file as an unsigned key document would be read (reasons go to `ignored`). */
  addFile(file: string): void {
    const doc = this.read(file);
    if (doc) this.trust(doc.entry);
  }

  private trust(entry: TrustedKey): void {
    for (const id of [entry.v1, entry.v2]) if (!this.keys.has(id)) this.keys.set(id, entry);
  }

  /** This store plus one key (to check a key document signed by itself). */
  private including(entry: TrustedKey): TrustStore {
    const probe = new TrustStore();
    for (const [id, k] of this.keys) probe.keys.set(id, k);
    probe.trust(entry);
    return probe;
  }

  private read(file: string): KeyDocument | undefined {
    try {
      const text = readRegularFile(file, MAX_CONFIG_BYTES).toString('utf8');
      const body = text
        .split('\n')
        .filter((l) => !/^#\s*rye:signed:/.test(l))
        .join('\n');
      const doc = parseToml(body) as Record<string, unknown>;
      const declared = typeof doc.fingerprint === 'string' ? doc.fingerprint.toLowerCase() : undefined;
      const owner = typeof doc.owner === 'string' ? doc.owner : 'unknown';
      const table = doc.public_key;
      const pem = table && typeof table === 'object' ? (table as { pem?: unknown }).pem : undefined;
      // Three forms: `public_key = "ed25519:…"`, `[public_key] pem = "ed25519:…"` (a raw key in the
      // pem slot, as the RYE tooling also writes) and `[public_key] pem = """-----BEGIN…"""`.
      const rawText =
        typeof table === 'string'
          ? table
          : typeof pem === 'string' && pem.trim().startsWith('ed25519:')
            ? pem.trim()
            : undefined;
      let key: KeyObject;
      let fingerprint: string;
      let v1: string | undefined;
      if (rawText !== undefined) {
        if (!rawText.startsWith('ed25519:')) throw new Error('public_key must be "ed25519:<base64>"');
        const raw = Buffer.from(rawText.slice('ed25519:'.length), 'base64');
        if (raw.length !== 32) throw new Error('ed25519 public key must be 32 bytes');
        key = createPublicKey(pemOf(raw));
        fingerprint = declared && declared.length === 16 ? v1KeyId(pemOf(raw)) : v2KeyId(raw);
      } else if (typeof pem === 'string') {
        key = createPublicKey(pem);
        if (key.asymmetricKeyType !== 'ed25519') throw new Error(`key type ${key.asymmetricKeyType} is not ed25519`);
        fingerprint = declared && declared.length === 64 ? v2KeyId(rawKey(key)) : v1KeyId(pem);
        v1 = v1KeyId(pem);
      } else {
        throw new Error('no public_key (expected [public_key] pem = … or public_key = "ed25519:…")');
      }
      const stem = path.basename(file, '.toml').toLowerCase();
      const claimed = declared ?? (/^[0-9a-f]{16}$|^[0-9a-f]{64}$/.test(stem) ? stem : undefined);
      if (claimed && claimed !== fingerprint) {
        this.ignored.push({ file, reason: `key does not match its fingerprint ${claimed} (it is ${fingerprint})` });
        return undefined;
      }
      const raw = rawKey(key);
      return { text, entry: { key, owner, file, v1: v1 ?? v1KeyId(pemOf(raw)), v2: v2KeyId(raw) } };
    } catch (err) {
      this.ignored.push({ file, reason: parseFailure(err) });
      return undefined;
    }
  }

  /** Changes whenever the set of trusted keys changes (invalidates cached verifications). */
  fingerprint(): string {
    return sha256([...this.keys.keys()].sort().join(','));
  }

  describe(): string {
    const ids = [...new Set([...this.keys.values()].map((k) => `${k.v1} (${k.owner})`))];
    return ids.length ? ids.join(', ') : 'none';
  }
}

/**
 * Whether `line` (a first line, without its break) is a comment a v1 signature of knowledge
 * leaves out: `<!-- … -->` then spaces or tabs, or `# rye:signed:…`, with no other line break
 * (`\r`, U+2028, U+2029) in it. Read in parts: one regular expression for it, with the break
 * after the line, tried every split of a long line that ended in white space (40,000 tabs: 4.5 s).
 */
function isSignatureComment(line: string): boolean {
  if (/[\r\u2028\u2029]/.test(line)) return false;
  if (/^# ?rye:signed:/.test(line)) return true;
  return line.startsWith('<!--') && /-->[ \t]*$/.test(line.slice(4));
}

/** What a v1 signature covers, by kind (on LF-normalised text, as the signer read it). */
export function v1Content(kind: Kind | 'config', text: string): string | undefined {
  const t = text.replace(/\r\n/g, '\n');
  if (kind === 'directive') {
    // The first `<directive` followed by a `>` (a regular expression looked again from every
    // `<directive` when none was: a megabyte of them held the JS thread minutes).
    const start = t.indexOf('<directive');
    const end = t.lastIndexOf('</directive>');
    if (start < 0 || t.indexOf('>', start) < 0 || end < start) return undefined;
    return t.slice(start, end + '</directive>'.length).trim();
  }
  if (kind === 'knowledge') {
    let rest = t;
    const lineEnd = rest.indexOf('\n');
    if (lineEnd >= 0 && isSignatureComment(rest.slice(0, lineEnd))) rest = splitLine(rest)[1];
    if (rest.startsWith('---')) {
      const close = rest.indexOf('---', 3);
      return close < 0 ? rest : rest.slice(close + 3).trim();
    }
    return rest;
  }
  let rest = t;
  if (rest.startsWith('#!')) {
    const [, after] = splitLine(rest);
    rest = splitLine(after)[1];
  } else {
    rest = splitLine(rest)[1];
  }
  return rest;
}

/** What a v2 signature covers: everything after the signature line. */
function v2Content(text: string, line: SignatureLine): string {
  let rest = splitLine(text)[1];
  if (line.lineIndex === 1) rest = splitLine(rest)[1];
  return rest;
}

function decodeSignature(sig: string): Buffer | undefined {
  const b64 = sig.replace(/-/g, '+').replace(/_/g, '/');
  const buf = Buffer.from(b64, 'base64');
  return buf.length === 64 ? buf : undefined;
}

/** Verifies one item's text. Order: unsigned → modified → untrusted → invalid → verified. */
export function verifyText(text: string, kind: Kind | 'config', ext: string, store: TrustStore, id = ''): Verification {
  const read = readSignature(text, ext);
  if (read.state === 'absent') {
    return { signed: false, integrity: 'unsigned', reason: `no rye:signed: line; sign it (rye sign ${kind}:${id})` };
  }
  if (read.state === 'malformed')
    return { signed: false, integrity: 'invalid', reason: `malformed signature line: ${read.reason}` };
  const line = read.line;
  // `signed` means a valid signature by a trusted key: a signature line alone is not a promise.
  const base = { signed: false, keyId: line.keyId, generation: line.generation };
  const candidates: (string | undefined)[] =
    line.generation === 1
      ? [v1Content(kind, text)]
      : [v2Content(text, line), v2Content(text.replace(/\r\n/g, '\n'), line)];
  if (line.generation === 1 && candidates[0] === undefined) {
    return { ...base, integrity: 'invalid', reason: 'signed directive has no <directive> element to verify' };
  }
  const hashes = candidates.filter((c): c is string => c !== undefined).map((c) => sha256(c));
  if (!hashes.includes(line.hash)) {
    return {
      ...base,
      integrity: 'modified',
      reason: `content modified since signing (expected ${line.hash.slice(0, 16)}…, found ${hashes[0]!.slice(0, 16)}…); re-sign it (rye sign ${kind}:${id}) if the edit is yours`,
    };
  }
  const trusted = store.keys.get(line.keyId);
  if (!trusted) {
    return {
      ...base,
      integrity: 'untrusted',
      reason: `signed by untrusted key ${line.keyId}; trusted keys: ${store.describe()}`,
    };
  }
  const sig = decodeSignature(line.signature);
  if (!sig || !edVerify(null, Buffer.from(line.hash, 'ascii'), trusted.key, sig)) {
    return {
      ...base,
      integrity: 'invalid',
      reason: `Ed25519 signature does not verify with key ${line.keyId} (${trusted.owner})`,
    };
  }
  return { ...base, signed: true, integrity: 'verified' };
}
