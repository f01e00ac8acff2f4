import io
import torch


class Vocab(object):
    def __init__(self, chars):
        self.itos = sorted(set(chars))
        self.stoi = {c: i for i, c in enumerate(self.itos)}

    def __len__(self):
        return len(self.itos)

    def encode(self, s):
        return [self.stoi[c] for c in s if c in self.stoi]

    def decode(self, ids):
        return ''.join(self.itos[i] for i in ids)


class CharCorpus(object):
    def __init__(self, path, valid_frac=0.05):
        with io.open(path, encoding='utf-8') as f:
            text = f.read()
        self.vocab = Vocab(text)
        ids = torch.tensor(self.vocab.encode(text), dtype=torch.long)
        n_valid = int(len(ids) * valid_frac)
        self.train = ids[:len(ids) - n_valid]
        self.valid = ids[len(ids) - n_valid:]


def stream_batches(data, bsz, rank=0, world=1):
    """Take this worker's contiguous 1/world of `data`, then fold it into bsz parallel streams.

    Returns a (T, bsz) tensor; batch i of the bptt loop is rows [i*bptt, (i+1)*bptt)."""
    per_rank = data.size(0) // world
    data = data[rank * per_rank:(rank + 1) * per_rank]
    nbatch = data.size(0) // bsz
    data = data.narrow(0, 0, nbatch * bsz)
    return data.view(bsz, -1).t().contiguous()


def get_batch(source, i, bptt):
    seq_len = min(bptt, len(source) - 1 - i)
    x = source[i:i + seq_len]
    y = source[i + 1:i + 1 + seq_len].reshape(-1)
    return x, y
