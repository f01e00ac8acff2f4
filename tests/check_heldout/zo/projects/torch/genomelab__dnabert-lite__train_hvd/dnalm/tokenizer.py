import itertools

BASES = "ACGT"
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


class KmerTokenizer:
    """Overlapping k-mer tokenizer in the DNABERT style."""

    def __init__(self, k=6):
        self.k = k
        kmers = ["".join(p) for p in itertools.product(BASES, repeat=k)]
        self.vocab = {tok: i for i, tok in enumerate(SPECIALS + kmers)}
        self.pad_id, self.unk_id, self.cls_id = 0, 1, 2

    def __len__(self):
        return len(self.vocab)

    def encode(self, seq, max_len):
        seq = seq.upper().replace("U", "T")
        ids = [self.cls_id]
        for i in range(len(seq) - self.k + 1):
            ids.append(self.vocab.get(seq[i:i + self.k], self.unk_id))
        ids = ids[:max_len]
        return ids + [self.pad_id] * (max_len - len(ids))
