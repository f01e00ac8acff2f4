import horovod.torch as hvd
import torch


def init_horovod():
    """Initialise Horovod, pin the local GPU, and return (rank, world, device)."""
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        return hvd.rank(), hvd.size(), torch.device(f"cuda:{hvd.local_rank()}")
    return hvd.rank(), hvd.size(), torch.device("cpu")


def gather_predictions(scores, labels):
    """Concatenate every rank's (scores, labels); shards may differ in length."""
    return hvd.allgather(scores, name="eval_scores"), hvd.allgather(labels, name="eval_labels")
