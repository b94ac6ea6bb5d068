/**
 * Linear-time scanners for the metadata formats (fenced blocks, XML-ish directives, Python
 * assignments and docstrings). The regular expressions they replace backtracked: an unclosed
 * fence or tag repeated 20,000 times cost seconds to minutes, and a docstring pattern was
 * exponential in blank lines. Each function here reads its input a bounded number of times.
 */

/**
 * `indexOf` with memory: searches for one needle move forward, so a search that found nothing
 * (or found something further on) answers every later search from an earlier position.
 */
export class Finder {
  private readonly last = new Map<string, { from: number; at: number }>();
  constructor(readonly text: string) {}

  find(needle: string, from: number): number {
    const seen = this.last.get(needle);
    if (seen && seen.from <= from && (seen.at === -1 || seen.at >= from)) return seen.at;
    const at = this.text.indexOf(needle, from);
    this.last.set(needle, { from, at });
    return at;
  }
}

const isSpace = (c: string | undefined) =>
  c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v';

/** The first fenced block of a language (```lang … ```), and the text around it. */
export function fenced(text: string, lang: string): { block: string; before: string; after: string } | undefined {
  let open = -1;
  let bodyStart = 0;
  let at = 0;
  while (at <= text.length) {
    const nl = text.indexOf('\n', at);
    const end = nl === -1 ? text.length : nl;
    const line = text.slice(at, end).replace(/\r$/, '');
    if (open === -1) {
      if (nl !== -1 && line.startsWith(`\`\`\`${lang}`) && /^[ \t]*$/.test(line.slice(3 + lang.length))) {
        open = at;
        bodyStart = nl + 1;
      }
    } else if (/^```[ \t]*$/.test(line)) {
      const closeEnd = at + line.length;
      return { block: text.slice(bodyStart, at), before: text.slice(0, open), after: text.slice(closeEnd) };
    }
    if (nl === -1) break;
    at = nl + 1;
  }
  return undefined;
}

/** Where the first `<tag …>` (or `<tag>`) opening tag is: its start and the index after its `>`. */
export function openTag(xml: string, tag: string): { start: number; end: number } | undefined {
  let from = 0;
  for (;;) {
    const at = xml.indexOf(`<${tag}`, from);
    if (at === -1) return undefined;
    const next = xml[at + 1 + tag.length];
    if (next === '>' || isSpace(next)) {
      // `[^>]*>`: the first `>` after it; if there is none, no later tag closes either.
      const gt = xml.indexOf('>', at + 1 + tag.length);
      return gt === -1 ? undefined : { start: at, end: gt + 1 };
    }
    from = at + 1;
  }
}

/** The raw inner text of the first `<tag …>…</tag>` element. */
export function elementInner(xml: string, tag: string): string | undefined {
  const open = openTag(xml, tag);
  if (!open) return undefined;
  const close = xml.indexOf(`</${tag}>`, open.end);
  return close === -1 ? undefined : xml.slice(open.end, close);
}

const NAME_START = /[A-Za-z_]/;
const NAME_CHAR = /[\w-]/;

/** Every `<name …>text</name>` whose text holds no `<`, in order (the metadata children). */
export function simpleElements(xml: string): { name: string; text: string }[] {
  const out: { name: string; text: string }[] = [];
  const finder = new Finder(xml);
  let p = xml.indexOf('<');
  while (p !== -1) {
    let q = p + 1;
    if (NAME_START.test(xml[q] ?? '')) {
      while (q < xml.length && NAME_CHAR.test(xml[q]!)) q++;
      const name = xml.slice(p + 1, q);
      const gt = xml[q] === '>' ? q : isSpace(xml[q]) ? finder.find('>', q) : -1;
      if (gt !== -1) {
        const lt = finder.find('<', gt + 1);
        if (lt !== -1 && xml.startsWith(`</${name}>`, lt)) {
          out.push({ name, text: xml.slice(gt + 1, lt) });
          p = xml.indexOf('<', lt + name.length + 3);
          continue;
        }
      }
    }
    p = xml.indexOf('<', p + 1);
  }
  return out;
}

/** Replaces each `<…>` tag with a space (a `<` with no `>` after it stays as text). */
export function stripTags(s: string): string {
  let out = '';
  let i = 0;
  for (;;) {
    const lt = s.indexOf('<', i);
    if (lt === -1) break;
    const gt = s.indexOf('>', lt + 1);
    if (gt === -1) break;
    out += `${s.slice(i, lt)} `;
    i = gt + 1;
  }
  return out + s.slice(i);
}

/**
 * The value of a module-level Python string assignment `name = "…"` (or `'…'`, `"""…"""`,
 * `'''…'''`, with an optional `: type` annotation), at the start of a line.
 */
export function pyAssignment(text: string, name: string): string | undefined {
  const finder = new Finder(text);
  let from = 0;
  for (;;) {
    const at = finder.find(name, from);
    if (at === -1) return undefined;
    from = at + 1;
    if (at > 0 && text[at - 1] !== '\n' && text[at - 1] !== '\r') continue;
    let i = at + name.length;
    while (isSpace(text[i])) i++;
    if (text[i] === ':') {
      // `(?::[^=]+)?`: an annotation runs to the next `=`.
      const eq = finder.find('=', i + 1);
      if (eq === -1 || eq === i + 1) continue;
      i = eq;
    }
    if (text[i] !== '=') continue;
    i++;
    while (isSpace(text[i])) i++;
    const value = pyStringAt(text, i, finder);
    if (value !== undefined) return value.trim();
  }
}

/** The Python string literal that starts at `i`, if one does. */
function pyStringAt(text: string, i: number, finder: Finder): string | undefined {
  for (const triple of ['"""', "'''"]) {
    if (text.startsWith(triple, i)) {
      const close = finder.find(triple, i + 3);
      return close === -1 ? undefined : text.slice(i + 3, close);
    }
  }
  const quote = text[i];
  if (quote !== '"' && quote !== "'") return undefined;
  let j = i + 1;
  while (j < text.length) {
    const c = text[j]!;
    if (c === quote) return text.slice(i + 1, j);
    if (c === '\n') return undefined;
    j += c === '\\' ? 2 : 1;
  }
  return undefined;
}

/** A Python module's docstring: the first string after comment and blank lines. */
export function pyDocstring(text: string): string | undefined {
  let at = 0;
  for (;;) {
    const nl = text.indexOf('\n', at);
    const line = text.slice(at, nl === -1 ? text.length : nl);
    const trimmed = line.trimStart();
    if (line.startsWith('#') || trimmed === '') {
      if (nl === -1) return undefined;
      at = nl + 1;
      continue;
    }
    for (const triple of ['"""', "'''"]) {
      if (line.startsWith(triple)) {
        const close = text.indexOf(triple, at + 3);
        return close === -1 ? undefined : text.slice(at + 3, close);
      }
    }
    return undefined;
  }
}

/** The value of `attr="…"` (or `'…'`) in an opening tag. */
export function attribute(tag: string, attr: string): string | undefined {
  const finder = new Finder(tag);
  for (let at = tag.indexOf(attr); at !== -1; at = tag.indexOf(attr, at + 1)) {
    if (!isSpace(tag[at - 1])) continue;
    let i = at + attr.length;
    while (isSpace(tag[i])) i++;
    if (tag[i] !== '=') continue;
    i++;
    while (isSpace(tag[i])) i++;
    const quote = tag[i];
    if (quote !== '"' && quote !== "'") continue;
    const close = finder.find(quote, i + 1);
    if (close !== -1) return tag.slice(i + 1, close);
  }
  return undefined;
}
