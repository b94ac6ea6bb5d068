/**
 * Metadata extraction per kind. Parsing never executes file content: YAML is parsed by `yaml`
 * with alias limits, and gray-matter's JavaScript front matter engines are replaced by ones that
 * refuse. Unreadable metadata does not drop the item: it is indexed by its text, with a warning.
 */
import type matterType from 'gray-matter';
import type { parse as parseTomlType } from 'smol-toml';
import type YAMLType from 'yaml';

import {
  attribute,
  elementInner,
  fenced,
  openTag,
  pyAssignment,
  pyDocstring,
  simpleElements,
  stripTags,
} from './markup.js';
import { exhaustedError, parseFailure, RyeSearchError } from './errors.js';
import type { Kind } from './scope.js';
import { withoutSignature } from './trust/signature.js';

export interface ItemMetadata {
  title: string;
  description: string;
  category: string;
  version?: string;
  tags: string[];
  author?: string;
  createdAt?: string;
  updatedAt?: string;
  /** Searchable body text. */
  content: string;
  /** Other scalar metadata keys, for filters and display. */
  extra: Record<string, string | number | boolean | string[]>;
  /** Why metadata could not be read (the item is still indexed). */
  warning?: string;
}

/** The parsers, loaded by `loadParsers`: a start-up that finds no changed file never needs them (~30 ms). */
let matter: typeof matterType;
let parseToml: typeof parseTomlType;
let YAML: typeof YAMLType;

/** Loads the front matter, YAML and TOML parsers; `parseItem` needs them. */
export async function loadParsers(): Promise<void> {
  if (YAML) return;
  const [m, t, y] = await Promise.all([import('gray-matter'), import('smol-toml'), import('yaml')]).catch((err) => {
    throw exhaustedError(err, 'cannot load the metadata parsers') ?? unloadable(err);
  });
  matter = m.default;
  parseToml = t.parse;
  YAML = y.default;
}

/**
 * A dependency that cannot be loaded: Node says "Cannot find package" also when it could not open
 * the file for want of a descriptor, so the error is coded with both causes in its hint.
 */
function unloadable(err: unknown): unknown {
  if ((err as NodeJS.ErrnoException | undefined)?.code !== 'ERR_MODULE_NOT_FOUND') return err;
  return new RyeSearchError('E_IO', `cannot load the metadata parsers: ${(err as Error).message}`, {
    hint: 'the process may be out of file descriptors (raise the limit: ulimit -n), or the package is incomplete (reinstall it)',
  });
}

/**
 * YAML's structure marks (line breaks, `:`, `,`, brackets, quotes, anchors, tags, …) read for an
 * item's metadata at most. The `yaml` package's time goes with them, ~8 µs each on the JS thread
 * (a megabyte of `a: b` lines 3.4 s, one of `}` lines 7.9 s), not with the text's length (an
 * 800 KB description on one line: 23 ms): five such files held a refresh, and an MCP server's
 * every session, 30 s. Metadata keys open an item (the RYE corpus's largest YAML item is 13 KB);
 * its whole text is still searched.
 */
export const YAML_READ_MARKS = 16_384;

/** Whether each ASCII character is one of YAML's structure marks. */
const YAML_MARK = new Uint8Array(128);
for (const c of '\n:,[]{}"\'&*!|>%@`#?-') YAML_MARK[c.charCodeAt(0)] = 1;

function parseYaml(text: string): unknown {
  const read = leadingYaml(text);
  // An error of a YAML that is one error after another cost most in capturing its stack, which
  // nothing reads (`parseFailure` keeps the first message).
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    // `logLevel: 'error'`: its warnings (an unknown tag or directive) went to the process's
    // warnings, one line on stderr each, 16,000 for a file of `%` lines; errors still throw.
    return YAML.parse(read, { maxAliasCount: 50, prettyErrors: false, uniqueKeys: false, logLevel: 'error' });
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/**
 * `text`, or, when it holds more than [`YAML_READ_MARKS`] structure marks, its part before the
 * last line within them that begins a top-level node (a key or an entry: no indentation, no
 * comment), so that what is read is whole YAML; an error when no such line is within them.
 */
function leadingYaml(text: string): string {
  let marks = 0;
  let at = 0;
  for (; at < text.length; at++) {
    const c = text.charCodeAt(at);
    if (c < 128 && YAML_MARK[c] === 1 && ++marks > YAML_READ_MARKS) break;
  }
  if (at === text.length) return text;
  let cut = text.lastIndexOf('\n', at - 1);
  while (cut > 0 && /[\s#]/u.test(text[cut + 1] ?? ' ')) cut = text.lastIndexOf('\n', cut - 1);
  if (cut <= 0) {
    throw new Error(
      `its YAML has no top-level line within its first ${YAML_READ_MARKS} structure marks (${at} characters)`,
    );
  }
  return text.slice(0, cut + 1);
}

/** `meta`, with a warning when only the first part of its YAML (`yaml`) was read. */
function readFromStart(meta: ItemMetadata, yaml: string): ItemMetadata {
  const read = leadingYaml(yaml).length;
  if (read < yaml.length) {
    meta.warning = `metadata read from the first ${read} characters of its YAML (${yaml.length} in all): past ${YAML_READ_MARKS} structure marks, the rest is searched as text`;
  }
  return meta;
}

function refuse(language: string): () => never {
  return () => {
    throw new Error(`${language} front matter is not supported (it would have to be executed)`);
  };
}

const MATTER_OPTIONS = {
  engines: {
    yaml: (s: string) => (parseYaml(s) ?? {}) as object,
    js: refuse('JavaScript'),
    javascript: refuse('JavaScript'),
    coffee: refuse('CoffeeScript'),
    coffeescript: refuse('CoffeeScript'),
    cson: refuse('CSON'),
  },
} as unknown as Parameters<typeof matterType>[1];

const KNOWN = new Set([
  'title',
  'name',
  'description',
  'category',
  'version',
  'tags',
  'author',
  'created_at',
  'updated_at',
]);

function str(v: unknown): string | undefined {
  if (typeof v === 'string') return v.trim();
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v instanceof Date && !Number.isNaN(v.getTime())) return v.toISOString();
  return undefined;
}

function tagsOf(v: unknown): string[] {
  if (Array.isArray(v)) return v.map(str).filter((t): t is string => !!t);
  const s = str(v);
  return s
    ? s
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean)
    : [];
}

function fromRecord(meta: unknown, fallbackTitle: string, content: string): ItemMetadata {
  const m = meta && typeof meta === 'object' && !Array.isArray(meta) ? (meta as Record<string, unknown>) : {};
  // Keys are the file's: `constructor` or `__proto__` are kept like any other.
  const extra: ItemMetadata['extra'] = Object.create(null);
  for (const [k, v] of Object.entries(m)) {
    if (KNOWN.has(k)) continue;
    const s = str(v);
    if (s !== undefined) extra[k] = typeof v === 'number' || typeof v === 'boolean' ? v : s;
    else if (Array.isArray(v) && v.every((x) => str(x) !== undefined)) extra[k] = v.map((x) => str(x)!);
  }
  return {
    title: str(m.title) || str(m.name) || fallbackTitle,
    description: str(m.description) ?? '',
    category: str(m.category) ?? '',
    version: str(m.version),
    tags: tagsOf(m.tags),
    author: str(m.author),
    createdAt: str(m.created_at),
    updatedAt: str(m.updated_at),
    content,
    extra,
  };
}

function failed(stem: string, content: string, why: unknown): ItemMetadata {
  const meta = fromRecord({}, stem, content);
  meta.warning = `metadata could not be read: ${parseFailure(why)}`;
  return meta;
}

function xmlText(s: string): string {
  return decodeEntities(stripTags(s)).replace(/\s+/g, ' ').trim();
}

function decodeEntities(s: string): string {
  return s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');
}

function xmlChild(xml: string, tag: string): string | undefined {
  const inner = elementInner(xml, tag);
  return inner === undefined ? undefined : xmlText(inner);
}

function xmlAttr(tag: string, attr: string): string | undefined {
  const value = attribute(tag, attr);
  return value === undefined ? undefined : decodeEntities(value);
}

function parseDirective(text: string, stem: string): ItemMetadata {
  const body = withoutSignature(text, '.md');
  const block = fenced(body, 'xml');
  const xml = block?.block ?? body;
  const tag = openTag(xml, 'directive');
  const open = tag && xml.slice(tag.start, tag.end);
  if (!open) {
    return failed(stem, body, 'no <directive> element found');
  }
  const metaBlock = elementInner(xml, 'metadata') ?? '';
  const extra: ItemMetadata['extra'] = Object.create(null);
  for (const { name: key, text: inner } of simpleElements(metaBlock)) {
    if (!['description', 'category', 'author', 'title', 'version', 'tags', 'created_at', 'updated_at'].includes(key)) {
      extra[key] = xmlText(inner);
    }
  }
  const name = xmlAttr(open, 'name');
  const content = block ? [block.before, xmlText(block.block), block.after].join('\n') : xmlText(body);
  return {
    title: xmlChild(metaBlock, 'title') || name || stem,
    description: xmlChild(metaBlock, 'description') ?? xmlChild(xml, 'description') ?? '',
    category: xmlChild(metaBlock, 'category') ?? '',
    version: xmlAttr(open, 'version') ?? xmlChild(metaBlock, 'version'),
    tags: tagsOf(xmlChild(metaBlock, 'tags')),
    author: xmlChild(metaBlock, 'author'),
    createdAt: xmlChild(metaBlock, 'created_at'),
    updatedAt: xmlChild(metaBlock, 'updated_at'),
    content,
    extra,
  };
}

function parseKnowledge(text: string, stem: string, ext: string): ItemMetadata {
  const body = withoutSignature(text, ext);
  if (ext !== '.md') {
    try {
      return readFromStart(fromRecord(parseYaml(body), stem, body), body);
    } catch (err) {
      return failed(stem, body, err);
    }
  }
  if (/^---/.test(body)) {
    try {
      const parsed = matter(body, MATTER_OPTIONS);
      return readFromStart(fromRecord(parsed.data, stem, parsed.content), parsed.matter);
    } catch (err) {
      // Drop the unreadable front matter from the searchable text, keep the rest.
      const end = body.indexOf('\n---', 3);
      return failed(stem, end > 0 ? body.slice(end + 4) : body, err);
    }
  }
  const block = fenced(body, 'yaml');
  if (!block) return fromRecord({}, stem, body);
  const content = `${block.before}\n${block.after}`;
  try {
    return readFromStart(fromRecord(parseYaml(block.block), stem, content), block.block);
  } catch (err) {
    return failed(stem, content, err);
  }
}

function pyString(text: string, name: string): string | undefined {
  return pyAssignment(text, name);
}

function leadingComments(text: string, marker: RegExp): string {
  const lines: string[] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('#!')) continue;
    const m = marker.exec(line);
    if (!m) {
      if (line.trim() === '' && lines.length === 0) continue;
      break;
    }
    lines.push(line.slice(m[0].length).trim());
  }
  return lines.join(' ').trim();
}

function parseTool(text: string, stem: string, ext: string): ItemMetadata {
  const body = withoutSignature(text, ext);
  try {
    switch (ext) {
      case '.py': {
        const docstring = (pyDocstring(body) ?? '').trim();
        const meta = fromRecord({}, stem, body);
        meta.version = pyString(body, '__version__');
        meta.category = pyString(body, '__category__') ?? '';
        meta.description =
          pyString(body, '__tool_description__') ??
          pyString(body, '__description__') ??
          docstring.split('\n')[0]!.trim();
        const toolType = pyString(body, '__tool_type__');
        if (toolType) meta.extra.tool_type = toolType;
        if (docstring) meta.extra.docstring = docstring;
        return meta;
      }
      case '.yaml':
      case '.yml':
        return readFromStart(fromRecord(parseYaml(body), stem, body), body);
      case '.json':
        return fromRecord(JSON.parse(body), stem, body);
      case '.toml':
        return fromRecord(parseToml(body), stem, body);
      case '.sh':
        return { ...fromRecord({}, stem, body), description: leadingComments(body, /^\s*#+/) };
      default:
        return { ...fromRecord({}, stem, body), description: leadingComments(body, /^\s*\/\/+/) };
    }
  } catch (err) {
    return failed(stem, body, err);
  }
}

/** Reads an item's metadata; `loadParsers()` must have resolved first. */
export function parseItem(kind: Kind, text: string, stem: string, ext: string): ItemMetadata {
  if (!YAML) throw new Error('parseItem before loadParsers(): the parsers are not loaded');
  switch (kind) {
    case 'directive':
      return parseDirective(text, stem);
    case 'knowledge':
      return parseKnowledge(text, stem, ext);
    case 'tool':
      return parseTool(text, stem, ext);
  }
}
