import os

import torch


class TokenStream(object):
    """whitespace tokens -> ids with a fixed vocab file (<unk>, <eos> first)."""

    def __init__(self, root, vocab_file):
        self.root = root
        with open(os.path.join(root, vocab_file), encoding='utf-8') as f:
            self.itos = ['<unk>', '<eos>'] + [l.strip() for l in f if l.strip()]
        self.stoi = {w: i for i, w in enumerate(self.itos)}

    @property
    def vocab_size(self):
        return len(self.itos)

    def ids(self, split):
        out = []
        with open(os.path.join(self.root, split + '.txt'), encoding='utf-8') as f:
            for line in f:
                out.extend(self.stoi.get(w, 0) for w in line.split())
                out.append(1)
        return torch.tensor(out, dtype=torch.long)

    def decode(self, ids):
        return ' '.join(self.itos[i] for i in ids)


def shard_streams(ids, bsz, rank, world):
    """(T, bsz) for this worker: the corpus is cut in world*bsz streams, worker r takes streams r*bsz..(r+1)*bsz-1."""
    n_streams = bsz * world
    T = ids.size(0) // n_streams
    all_streams = ids[:T * n_streams].view(n_streams, T)
    return all_streams[rank * bsz:(rank + 1) * bsz].t().contiguous()
