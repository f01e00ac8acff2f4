"""Helpers kept from the mpi4py version. RANK / SIZE / LOCAL_RANK are module globals filled in by
init_comm(); always read them as helpers.RANK (a `from helpers import RANK` copies the old value)."""
import math

import horovod.torch as hvd
import torch

RANK = 0
SIZE = 1
LOCAL_RANK = 0


def init_comm():
    """Was: comm = MPI.COMM_WORLD; RANK = comm.Get_rank(); ... plus a node-local split for the GPU."""
    global RANK, SIZE, LOCAL_RANK
    hvd.init()
    RANK, SIZE, LOCAL_RANK = hvd.rank(), hvd.size(), hvd.local_rank()
    if torch.cuda.is_available():
        torch.cuda.set_device(LOCAL_RANK)
    torch.set_num_threads(4)


def global_rmse(sq_err_sum, count):
    """RMSE over the whole validation set from each rank's sum of squared errors and point count
    (was comm.allreduce(..., op=MPI.SUM))."""
    t = torch.tensor([float(sq_err_sum), float(count)], dtype=torch.float64)
    t = hvd.allreduce(t, op=hvd.Sum, name="val_sq_err")
    return math.sqrt(t[0].item() / t[1].item())
