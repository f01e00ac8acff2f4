import torch


def load_imdb(path, max_len):
    """Pre-tokenized IMDB: a dict of LongTensors (train_ids, train_labels, test_ids, test_labels)."""
    blob = torch.load(path)
    cut = lambda t: t[:, :max_len]
    return (cut(blob["train_ids"]), blob["train_labels"], cut(blob["test_ids"]), blob["test_labels"],
            int(blob["vocab_size"]))


def rank_partition(x, y, rank, world, seed=0):
    """Same permutation on every worker, then an equal contiguous slice per worker."""
    g = torch.Generator().manual_seed(seed)
    perm = torch.randperm(len(x), generator=g)
    per = len(x) // world
    idx = perm[rank * per:(rank + 1) * per]
    return x[idx], y[idx]


def batches(x, y, bs, epoch):
    g = torch.Generator().manual_seed(1000 + epoch)
    order = torch.randperm(len(x), generator=g)
    for i in range(0, len(x) - bs + 1, bs):
        j = order[i:i + bs]
        yield x[j], y[j]
