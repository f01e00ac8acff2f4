import horovod.torch as hvd


def discriminative_param_groups(model, lr, backbone_mult, weight_decay):
    """Two lr groups (backbone, head), each split by weight decay.

    The lr is given for one worker and scaled linearly with the number of workers.
    """
    lr = lr * hvd.size()
    groups = []
    for name, module, group_lr in (("backbone", model.backbone, lr * backbone_mult),
                                   ("head", model.head, lr)):
        decay, no_decay = [], []
        for pname, p in module.named_parameters():
            if not p.requires_grad:
                continue
            (no_decay if p.ndim <= 1 else decay).append(p)
        groups.append({"params": decay, "lr": group_lr, "weight_decay": weight_decay, "name": name})
        groups.append({"params": no_decay, "lr": group_lr, "weight_decay": 0.0, "name": name + "_nd"})
    return groups
