import torch
import horovod.torch as hvd


def init_horovod():
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    torch.set_num_threads(max(1, torch.get_num_threads() // hvd.local_size()))


def per_replica_batch(global_batch):
    """tf.distribute style: the config holds the global batch, each worker gets a slice."""
    if global_batch % hvd.size():
        raise ValueError(f"global batch {global_batch} not divisible by {hvd.size()} workers")
    return global_batch // hvd.size()


def all_mean(value, name):
    return hvd.allreduce(torch.as_tensor(value, dtype=torch.float64), name=name).item()


def all_sum(value, name):
    return hvd.allreduce(torch.as_tensor(value, dtype=torch.float64), name=name,
                         op=hvd.Sum).item()
