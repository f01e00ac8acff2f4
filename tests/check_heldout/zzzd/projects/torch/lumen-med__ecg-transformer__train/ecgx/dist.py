import os

import torch
import torch.distributed as tdist

LAUNCHER = "none"
hvd = None


def init_dist(launcher):
    global LAUNCHER, hvd
    LAUNCHER = launcher
    if launcher == "horovod":
        import horovod.torch as _hvd
        _hvd.init()
        hvd = _hvd
        local_rank = hvd.local_rank()
    elif launcher in ("pytorch", "slurm"):
        if launcher == "slurm":
            os.environ.setdefault("RANK", os.environ["SLURM_PROCID"])
            os.environ.setdefault("WORLD_SIZE", os.environ["SLURM_NTASKS"])
            os.environ.setdefault("LOCAL_RANK", os.environ["SLURM_LOCALID"])
        tdist.init_process_group("nccl")
        local_rank = int(os.environ["LOCAL_RANK"])
    else:
        local_rank = 0
    if torch.cuda.is_available():
        torch.cuda.set_device(local_rank)


def get_rank():
    if LAUNCHER == "horovod":
        return hvd.rank()
    return tdist.get_rank() if tdist.is_initialized() else 0


def get_world_size():
    if LAUNCHER == "horovod":
        return hvd.size()
    return tdist.get_world_size() if tdist.is_initialized() else 1


def is_main_process():
    return get_rank() == 0


def wrap(model, optimizer, accum_steps=1):
    if LAUNCHER == "horovod":
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(optimizer, root_rank=0)
        optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                             backward_passes_per_step=accum_steps)
    elif tdist.is_initialized():
        model = torch.nn.parallel.DistributedDataParallel(model)
    return model, optimizer
