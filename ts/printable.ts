/**
 * Text from items and files (ids, titles, paths, messages) as a terminal or a model may be shown
 * it: the characters that change how the rest displays written as visible escapes. Control
 * characters (Unicode's Cc: C0, DEL and C1): a file name with a newline keeps its row, a title
 * cannot send a terminal escape sequences. The bidirectional formatting characters (U+202E
 * reverses what follows; "Trojan Source"): a description cannot show one text and hold another.
 * Human output and MCP text only: JSON carries every character as it is.
 */
const HIDDEN = /[\p{Cc}\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;
const NAMED: Record<string, string> = { '\n': '\\n', '\t': '\\t', '\r': '\\r' };

export function printable(text: string): string {
  return text.replace(HIDDEN, (c) => NAMED[c] ?? escaped(c.charCodeAt(0)));
}

function escaped(code: number): string {
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}
