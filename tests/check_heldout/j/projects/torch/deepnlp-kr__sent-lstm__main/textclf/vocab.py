from collections import Counter

PAD, UNK = "<pad>", "<unk>"


def tokenize(text):
    text = re.sub(r"<br\s*/?>", " ", text.lower())
    return re.findall(r"[a-z0-9']+|[!?.,]", text)


class Vocab:
    def __init__(self, counter, max_size=30000, min_freq=2):
        self.itos = [PAD, UNK] + [w for w, c in counter.most_common(max_size) if c >= min_freq]
        self.stoi = {w: i for i, w in enumerate(self.itos)}

    def __len__(self):
        return len(self.itos)

    def encode(self, tokens):
        unk = self.stoi[UNK]
        return [self.stoi.get(t, unk) for t in tokens]

    @classmethod
    def build(cls, texts, **kw):
        counter = Counter()
        for t in texts:
            counter.update(tokenize(t))
        return cls(counter, **kw)
