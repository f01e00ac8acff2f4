AMINO = "ACDEFGHIKLMNPQRSTVWY"
EXTRA = "XBZUO"
PAD, CLS, EOS, UNK = 0, 1, 2, 3


class Alphabet:
    def __init__(self):
        toks = list(AMINO + EXTRA)
        self.tok_to_idx = {t: i + 4 for i, t in enumerate(toks)}
        self.size = len(toks) + 4

    def encode(self, seq, max_len=1022):
        seq = seq.strip().upper()[: max_len - 2]
        ids = [CLS] + [self.tok_to_idx.get(a, UNK) for a in seq] + [EOS]
        return ids

    def batch(self, seqs):
        import torch
        enc = [self.encode(s) for s in seqs]
        width = max(len(e) for e in enc)
        out = torch.full((len(enc), width), PAD, dtype=torch.long)
        for i, e in enumerate(enc):
            out[i, : len(e)] = torch.tensor(e)
        return out
