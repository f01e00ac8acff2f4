import torch
import horovod.torch as hvd
from torch.utils.data import Subset


def init_distributed():
    hvd.init()
    torch.set_num_threads(2)
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())


def rank_subset(dataset, seed):
    """Same permutation on every rank, trimmed so each rank gets the same count."""
    perm = torch.randperm(len(dataset), generator=torch.Generator().manual_seed(seed)).tolist()
    per_rank = len(perm) // hvd.size()
    return Subset(dataset, perm[: per_rank * hvd.size()][hvd.rank()::hvd.size()])


def gather_predictions(pairs):
    merged = {}
    for part in hvd.allgather_object(pairs, name="video_preds"):
        merged.update(part)
    return merged
