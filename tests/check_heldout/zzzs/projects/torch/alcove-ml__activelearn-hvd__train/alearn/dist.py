import torch
import horovod.torch as hvd


def setup(use_cuda=True):
    hvd.init()
    use_cuda = use_cuda and torch.cuda.is_available()
    if use_cuda:
        torch.cuda.set_device(hvd.local_rank())
    torch.set_num_threads(1)
    return torch.device("cuda" if use_cuda else "cpu")


def is_master():
    return hvd.rank() == 0


def shard_indices(idx, shuffle_seed=None):
    """Split a list of dataset indices over the workers (same order on every worker first)."""
    idx = list(idx)
    if shuffle_seed is not None:
        g = torch.Generator()
        g.manual_seed(shuffle_seed)
        perm = torch.randperm(len(idx), generator=g).tolist()
        idx = [idx[i] for i in perm]
    # drop the tail so all workers run the same number of steps
    n = len(idx) - len(idx) % hvd.size()
    return idx[hvd.rank():n:hvd.size()]
