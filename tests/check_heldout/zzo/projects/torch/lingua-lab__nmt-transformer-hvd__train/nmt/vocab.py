from collections import Counter

PAD, BOS, EOS, UNK = "<pad>", "<s>", "</s>", "<unk>"


class Vocab:
    def __init__(self, tokens):
        self.itos = [PAD, BOS, EOS, UNK] + [t for t in tokens if t not in (PAD, BOS, EOS, UNK)]
        self.stoi = {t: i for i, t in enumerate(self.itos)}

    @classmethod
    def build(cls, lines, max_size=32000, min_freq=2):
        counts = Counter(tok for line in lines for tok in line.split())
        common = [t for t, c in counts.most_common(max_size) if c >= min_freq]
        return cls(common)

    def encode(self, line):
        return [self.stoi[BOS]] + [self.stoi.get(t, 3) for t in line.split()] + [self.stoi[EOS]]

    def decode(self, ids):
        out = []
        for i in ids:
            if i == 2:
                break
            if i > 1:
                out.append(self.itos[i])
        return out

    def __len__(self):
        return len(self.itos)
