import json

import numpy as np


class CharTokenizer:
    PAD, BOS, EOS = 0, 1, 2

    def __init__(self, chars):
        self.chars = list(chars)
        self.stoi = {c: i + 3 for i, c in enumerate(self.chars)}

    @classmethod
    def fit(cls, texts):
        return cls(sorted({c for t in texts for c in t}))

    @property
    def vocab_size(self):
        return len(self.chars) + 3

    def encode_batch(self, texts, max_len):
        out = np.zeros((len(texts), max_len + 2), np.int32)
        for r, t in enumerate(texts):
            ids = [self.BOS] + [self.stoi[c] for c in t[:max_len] if c in self.stoi] + [self.EOS]
            out[r, :len(ids)] = ids
        return out

    def save(self, path):
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(self.chars, fh, ensure_ascii=False)
