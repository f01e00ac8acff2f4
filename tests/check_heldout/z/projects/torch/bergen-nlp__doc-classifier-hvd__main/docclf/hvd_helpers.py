"""Small Horovod helpers used by train_lib and the labelling scripts."""
import torch

import horovod.torch as hvd


def setup():
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    torch.set_num_threads(1)


def per_worker_batch(global_batch):
    return max(1, global_batch // hvd.size())


def my_slice(n_items, epoch, seed=11):
    """Identical permutation on all workers for this epoch, then a contiguous block per worker."""
    g = torch.Generator().manual_seed(seed + epoch)
    perm = torch.randperm(n_items, generator=g)
    per = n_items // hvd.size()
    return perm[hvd.rank() * per:(hvd.rank() + 1) * per].tolist()


def macro_f1(pred, gold, n_classes):
    f1s = []
    for c in range(n_classes):
        tp = ((pred == c) & (gold == c)).sum().item()
        fp = ((pred == c) & (gold != c)).sum().item()
        fn = ((pred != c) & (gold == c)).sum().item()
        f1s.append(2 * tp / max(2 * tp + fp + fn, 1))
    return sum(f1s) / n_classes
