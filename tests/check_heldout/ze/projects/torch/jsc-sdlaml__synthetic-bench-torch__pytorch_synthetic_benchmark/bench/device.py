import torch

import horovod.torch as hvd


def setup_device(args):
    """One GPU per process, chosen by the local rank."""
    use_cuda = not args.no_cuda and torch.cuda.is_available()
    if use_cuda:
        torch.cuda.set_device(hvd.local_rank())
        torch.backends.cudnn.benchmark = True
        return torch.device("cuda", hvd.local_rank())
    torch.set_num_threads(max(1, torch.get_num_threads() // max(1, hvd.local_size())))
    return torch.device("cpu")
