from collections import Counter

PAD, UNK = "<pad>", "<unk>"


def tokenize(text):
    return text.lower().replace("<br />", " ").split()


class Vocab:
    def __init__(self, texts, max_size=20000, min_freq=2):
        counts = Counter(tok for t in texts for tok in tokenize(t))
        words = sorted((w for w, c in counts.items() if c >= min_freq), key=lambda w: (-counts[w], w))
        self.itos = [PAD, UNK] + words[: max_size - 2]
        self.stoi = {w: i for i, w in enumerate(self.itos)}

    def __len__(self):
        return len(self.itos)

    def encode(self, text, max_len):
        ids = [self.stoi.get(t, 1) for t in tokenize(text)][:max_len]
        return ids + [0] * (max_len - len(ids))
