import torch
import torch.nn.functional as F
import horovod.torch as hvd


def global_infonce(img, txt, log_inv_tau):
    """Symmetric InfoNCE with negatives from every worker's batch."""
    scale = log_inv_tau.exp().clamp(max=100)
    g_img = hvd.allgather(img)
    g_txt = hvd.allgather(txt)
    labels = torch.arange(img.size(0), device=img.device) + hvd.rank() * img.size(0)
    return (F.cross_entropy(scale * img @ g_txt.T, labels)
            + F.cross_entropy(scale * txt @ g_img.T, labels)) / 2
