import torch
import horovod.torch as hvd


def is_main():
    return hvd.rank() == 0


def sync_state(model, optimizer):
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)


def global_sum(values, name):
    t = torch.tensor(values, dtype=torch.float64)
    return hvd.allreduce(t, name=name, op=hvd.Sum).tolist()


def log(msg):
    if is_main():
        print(msg, flush=True)
