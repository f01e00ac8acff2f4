import torch
import horovod.torch as hvd


def build_optimizers(model, cfg):
    """SGD for the DenseNet trunk, Adam at a higher lr for the small task heads."""
    scale = hvd.size()
    trunk = torch.optim.SGD(model.backbone.parameters(), lr=cfg.backbone_lr * scale,
                            momentum=0.9, weight_decay=cfg.weight_decay, nesterov=True)
    trunk = hvd.DistributedOptimizer(
        trunk, named_parameters=[("backbone." + n, p) for n, p in model.backbone.named_parameters()])
    heads = torch.optim.Adam(model.heads.parameters(), lr=cfg.head_lr * scale)
    return trunk, heads


def warmup_cosine(optimizer, warmup, total):
    def f(step):
        if step < warmup:
            return (step + 1) / warmup
        t = (step - warmup) / max(1, total - warmup)
        return 0.5 * (1 + torch.cos(torch.tensor(t * 3.14159265)).item())
    return torch.optim.lr_scheduler.LambdaLR(optimizer, f)
