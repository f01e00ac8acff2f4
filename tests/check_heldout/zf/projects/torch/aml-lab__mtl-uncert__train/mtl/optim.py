"""Parameter groups: heads get a higher lr than the trunk, task weights no decay."""


def param_groups(model, criterion, lr, head_mult=10.0, wd=1e-4):
    trunk = list(model.trunk.parameters())
    heads = list(model.cls_head.parameters()) + list(model.reg_head.parameters())
    return [
        {"params": trunk, "lr": lr, "weight_decay": wd},
        {"params": heads, "lr": lr * head_mult, "weight_decay": wd},
        {"params": list(criterion.parameters()), "lr": lr, "weight_decay": 0.0},
    ]
