// Debian package lines (JSON, stdin) to the text an item is embedded from (one a line, stdout):
// title, name, description, tags and the start of the content, as the core's item_text makes it.
//   zcat ../shared/corpus/debian/packages.jsonl.gz | head -2000 | node bench/probes/item-texts.js
import readline from 'node:readline';

const CONTENT_CHARS = 600;
for await (const line of readline.createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const p = JSON.parse(line);
  const parts = [p.name, p.name, p.description].filter(Boolean).map((s) => `${s}. `);
  const tags = p.tags?.length ? `${p.tags.join(', ')}. ` : '';
  const text = parts.join('') + tags + [...(p.content ?? '')].slice(0, CONTENT_CHARS).join('');
  console.log(text.replace(/\s+/g, ' '));
}
