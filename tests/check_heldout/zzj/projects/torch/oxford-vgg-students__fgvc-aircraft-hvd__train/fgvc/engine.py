import torch
import torch.nn.functional as F
import horovod.torch as hvd


def build_optimizer(cfg, model):
    lr = cfg['lr'] * hvd.size()
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9, weight_decay=cfg['weight_decay'])
    return hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())


def set_lr(optimizer, cfg, epoch, it, iters):
    peak = cfg['lr'] * hvd.size()
    t = epoch + it / iters
    if t < cfg['warmup_epochs']:
        lr = cfg['lr'] + (peak - cfg['lr']) * t / cfg['warmup_epochs']
    else:
        lr = peak * (0.1 ** int(t >= 0.6 * cfg['epochs'])) * (0.1 ** int(t >= 0.85 * cfg['epochs']))
    for g in optimizer.param_groups:
        g['lr'] = lr


def train_epoch(model, loader, optimizer, cfg, epoch, device):
    model.train()
    for it, (x, y) in enumerate(loader):
        set_lr(optimizer, cfg, epoch, it, len(loader))
        x, y = x.to(device), y.to(device)
        loss = F.cross_entropy(model(x), y, label_smoothing=0.1)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return loss.item()


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    stats = torch.zeros(2)
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        stats[0] += (model(x).argmax(1) == y).sum().item()
        stats[1] += y.numel()
    stats = hvd.allreduce(stats, op=hvd.Sum, name='eval_counts')
    return (stats[0] / stats[1]).item()
