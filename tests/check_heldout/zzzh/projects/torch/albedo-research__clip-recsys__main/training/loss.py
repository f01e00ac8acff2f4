import torch
import torch.nn.functional as F
import horovod.torch as hvd


def clip_loss(q, d, logit_scale):
    all_d = hvd.allgather(d, name="items")
    all_q = hvd.allgather(q, name="queries")
    tgt = torch.arange(q.size(0), device=q.device) + hvd.rank() * q.size(0)
    s = logit_scale.exp()
    return 0.5 * (F.cross_entropy(s * q @ all_d.t(), tgt) + F.cross_entropy(s * d @ all_q.t(), tgt))
