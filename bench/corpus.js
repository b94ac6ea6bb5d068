// The Debian corpus as RYE items, in tiers: c10k, c60k (all 63,666), c1m (replicas with varied ids).
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const CORPUS_FILE =
  process.env.RYE_BENCH_CORPUS ?? path.resolve(HERE, '..', '..', 'shared', 'corpus', 'debian', 'packages.jsonl.gz');

export const TIERS = { c10k: 10_000, c60k: 63_666, c1m: 1_000_000 };

let cache;
export function packages() {
  if (!cache) {
    const lines = zlib.gunzipSync(fs.readFileSync(CORPUS_FILE)).toString('utf8').split('\n').filter(Boolean);
    cache = lines.map((l) => {
      const p = JSON.parse(l);
      return {
        id: `${p.section}/${p.name}`,
        name: p.name,
        title: p.name,
        description: p.description ?? '',
        category: p.section,
        tags: p.tags ?? [],
        content: p.content ?? '',
        version: p.version,
      };
    });
  }
  return cache;
}

/** `base` is the original package id (replicas share it), for known-item checks. */
export function tier(name) {
  const size = TIERS[name];
  if (!size) throw new Error(`unknown tier ${name}`);
  const all = packages();
  if (size <= all.length) return all.slice(0, size).map((d) => ({ ...d, base: d.id }));
  const out = [];
  for (let r = 0; out.length < size; r++) {
    for (const d of all) {
      if (out.length >= size) break;
      out.push(r === 0 ? { ...d, base: d.id } : { ...d, id: `${d.id}-r${r}`, name: `${d.name}-r${r}`, base: d.id });
    }
  }
  return out;
}

/** Writes items as `.ai/knowledge/<section>/<name>.md` under root. */
export function writeTree(items, root) {
  for (const d of items) {
    const file = path.join(root, '.ai', 'knowledge', `${d.id}.md`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const meta = [
      `name: ${JSON.stringify(d.name)}`,
      `title: ${JSON.stringify(d.title)}`,
      `description: ${JSON.stringify(d.description)}`,
      `category: ${JSON.stringify(d.category)}`,
      `version: ${JSON.stringify(d.version ?? '')}`,
      `tags: ${JSON.stringify(d.tags)}`,
    ];
    fs.writeFileSync(file, `\`\`\`yaml\n${meta.join('\n')}\n\`\`\`\n\n${d.content}\n`);
  }
}
