import torch
import torch.nn.functional as F
import horovod.torch as hvd


def setup():
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        return torch.device("cuda", hvd.local_rank())
    return torch.device("cpu")


def is_main():
    return hvd.rank() == 0


def contrastive_loss(img, txt, scale):
    """In-batch negatives over the global batch: local rows against every worker's columns."""
    all_img = hvd.allgather(img, name="gather_img")   # differentiable in horovod.torch
    all_txt = hvd.allgather(txt, name="gather_txt")
    offset = hvd.rank() * img.shape[0]
    targets = torch.arange(img.shape[0], device=img.device) + offset
    loss_i = F.cross_entropy(scale * img @ all_txt.t(), targets)
    loss_t = F.cross_entropy(scale * txt @ all_img.t(), targets)
    return 0.5 * (loss_i + loss_t)


def mean_across_workers(value, name):
    return hvd.allreduce(torch.tensor(float(value)), name=name).item()
