import math

import torch
import horovod.torch as hvd


def global_rmse(sq_err_sum, count):
    t = torch.tensor([sq_err_sum, float(count)], dtype=torch.float64)
    t = hvd.allreduce(t, op=hvd.Sum, name="rmse_parts")
    return math.sqrt(t[0].item() / max(t[1].item(), 1.0))
