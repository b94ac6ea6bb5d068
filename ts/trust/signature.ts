/**
 * The `rye:signed:` line: where it sits, which comment syntax each extension uses, and its
 * parts. Two generations: v1 (16-hex key id, base64url signature, kind-specific hash) and
 * v2 (64-hex key id, standard base64, hash of everything after the line).
 */

export interface SignatureLine {
  timestamp: string;
  hash: string;
  signature: string;
  keyId: string;
  generation: 1 | 2;
  /** 0 when the line is first, 1 when it follows a `#!` line. */
  lineIndex: 0 | 1;
}

export type SignatureRead =
  | { state: 'absent' }
  | { state: 'malformed'; reason: string; lineIndex: 0 | 1 }
  | { state: 'present'; line: SignatureLine };

const PREFIXES: Record<string, readonly string[]> = {
  '.md': ['<!--'],
  '.py': ['#'],
  '.sh': ['#'],
  '.toml': ['#'],
  '.json': ['#'],
  '.yaml': ['#', '<!--'],
  '.yml': ['#', '<!--'],
  '.js': ['//'],
  '.ts': ['//'],
  '.mjs': ['//'],
  '.cjs': ['//'],
};

const MARKER = /^(<!--|#|\/\/) rye:signed:/;
const BODY =
  /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ):([0-9a-f]{64}):([A-Za-z0-9+/_-]+={0,2}):([0-9a-f]{64}|[0-9a-f]{16})(?:\|[A-Za-z0-9_-]+@[A-Za-z0-9_-]+)?$/;

/** Splits off the first line (without its newline) and the rest (after the newline). */
export function splitLine(text: string): [string, string] {
  const nl = text.indexOf('\n');
  return nl < 0 ? [text, ''] : [text.slice(0, nl).replace(/\r$/, ''), text.slice(nl + 1)];
}

/** Where the signature line may be: line 0, or line 1 after a `#!` line. */
export function signatureLineIndex(text: string): 0 | 1 {
  return text.startsWith('#!') ? 1 : 0;
}

export function readSignature(text: string, ext: string): SignatureRead {
  const index = signatureLineIndex(text);
  let line = splitLine(text)[0];
  if (index === 1) line = splitLine(splitLine(text)[1])[0];
  const m = MARKER.exec(line);
  if (!m) {
    // A signature on line 0 of a file with a shebang, or vice versa, is still a signature.
    return { state: 'absent' };
  }
  const prefix = m[1]!;
  const allowed = PREFIXES[ext] ?? ['#'];
  if (!allowed.includes(prefix)) {
    return { state: 'malformed', reason: `"${prefix}" comments are not used for ${ext} files`, lineIndex: index };
  }
  let body = line.slice(m[0].length).trimEnd();
  if (prefix === '<!--') {
    if (body.endsWith('-->')) body = body.slice(0, -3).trimEnd();
  }
  const parts = BODY.exec(body);
  if (!parts)
    return { state: 'malformed', reason: 'signature line does not have the form TS:HASH:SIG:KEYID', lineIndex: index };
  const keyId = parts[4]!;
  return {
    state: 'present',
    line: {
      timestamp: parts[1]!,
      hash: parts[2]!,
      signature: parts[3]!,
      keyId,
      generation: keyId.length === 16 ? 1 : 2,
      lineIndex: index,
    },
  };
}

/** The text without its signature line (the shebang, if any, is kept). */
export function withoutSignature(text: string, ext: string): string {
  const read = readSignature(text, ext);
  if (read.state === 'absent') return text;
  const index = read.state === 'present' ? read.line.lineIndex : read.lineIndex;
  if (index === 0) return splitLine(text)[1];
  const [shebang, rest] = splitLine(text);
  return `${shebang}\n${splitLine(rest)[1]}`;
}
