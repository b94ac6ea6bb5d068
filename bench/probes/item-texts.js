// Debian package lines (JSON, stdin) to the text the sentence encoder reads of an item (one a
// line, stdout): its title, description and the start of its content, as the core's
// `semantic::meaning_text` makes it (a package's name is its title).
//   zcat ../shared/corpus/debian/packages.jsonl.gz | head -2000 | node bench/probes/item-texts.js
import readline from 'node:readline';

const CONTENT_CHARS = 600;
for await (const line of readline.createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const p = JSON.parse(line);
  const parts = [p.name, p.description].filter(Boolean).map((s) => `${s}. `);
  const text = parts.join('') + [...(p.content ?? '')].slice(0, CONTENT_CHARS).join('');
  console.log(text.replace(/\s+/g, ' '));
}
