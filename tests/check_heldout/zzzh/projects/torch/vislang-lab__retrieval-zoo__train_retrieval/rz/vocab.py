from collections import Counter

PAD, UNK = "<pad>", "<unk>"


class Vocab:
    def __init__(self, words):
        self.itos = [PAD, UNK] + list(words)
        self.stoi = {w: i for i, w in enumerate(self.itos)}

    def __len__(self):
        return len(self.itos)

    @classmethod
    def from_captions(cls, path, min_freq=1):
        cnt = Counter()
        with open(path) as f:
            for line in f:
                cnt.update(line.rstrip("\n").split("\t", 1)[-1].lower().split())
        return cls(sorted(w for w, c in cnt.items() if c >= min_freq))

    def encode(self, text, max_len):
        ids = [self.stoi.get(w, 1) for w in text.lower().split()][:max_len]
        return ids + [0] * (max_len - len(ids))
