import numpy as np


def read_manifest(path):
    """`image_path<TAB>text` per line."""
    paths, texts = [], []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if "\t" not in line:
                continue
            p, t = line.rstrip("\n").split("\t", 1)
            paths.append(p)
            texts.append(t)
    return paths, texts


def build_charset(*text_lists):
    return sorted({c for texts in text_lists for t in texts for c in t})


def encode(texts, charset, max_len):
    table = {c: i + 1 for i, c in enumerate(charset)}  # 0 = padding / CTC blank
    out = np.zeros((len(texts), max_len), dtype=np.int32)
    for r, t in enumerate(texts):
        ids = [table[c] for c in t if c in table][:max_len]
        out[r, :len(ids)] = ids
    return out
