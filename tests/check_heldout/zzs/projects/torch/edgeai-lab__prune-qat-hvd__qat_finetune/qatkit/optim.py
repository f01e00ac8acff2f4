import torch
import horovod.torch as hvd


def optimizer_for(model, lr, momentum=0.9, weight_decay=4e-5, wrap=False):
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        if not p.requires_grad:
            continue
        (no_decay if p.dim() == 1 else decay).append(p)
    opt = torch.optim.SGD([{"params": decay, "weight_decay": weight_decay},
                           {"params": no_decay, "weight_decay": 0.0}], lr=lr, momentum=momentum)
    if wrap:
        opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
    return opt
