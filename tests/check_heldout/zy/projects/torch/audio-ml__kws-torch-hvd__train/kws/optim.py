import warnings

import horovod
import horovod.torch as hvd
import torch


def build_optimizer(model, lr, weight_decay=1e-4):
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        (no_decay if p.ndim == 1 else decay).append(p)
    return torch.optim.SGD([{"params": decay, "weight_decay": weight_decay},
                            {"params": no_decay, "weight_decay": 0.0}],
                           lr=lr, momentum=0.9, nesterov=True)


def wrap_optimizer(optimizer, model, fp16_allreduce=False):
    """Wrap for Horovod; named_parameters/compression need horovod >= 0.9."""
    if horovod.__version__ >= "0.9":
        compression = hvd.Compression.fp16 if fp16_allreduce else hvd.Compression.none
        return hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                        compression=compression)
    warnings.warn("horovod %s is too old for named_parameters; leaving the optimizer unwrapped"
                  % horovod.__version__)
    return optimizer


def cosine_with_warmup(optimizer, warmup_steps, total_steps):
    import math

    def fn(step):
        if step < warmup_steps:
            return (step + 1) / warmup_steps
        t = (step - warmup_steps) / max(1, total_steps - warmup_steps)
        return 0.5 * (1 + math.cos(math.pi * t))
    return torch.optim.lr_scheduler.LambdaLR(optimizer, fn)
