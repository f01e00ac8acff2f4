import os

import torch
import torch.nn as nn
import horovod.torch as hvd

from gmp.config import TrainConfig
from gmp.data import make_loaders
from gmp.engine import train_one_epoch, validate
from gmp.sparsity import MagnitudePruner, cubic_sparsity


def resnet20(num_classes=10):
    def block(cin, cout, stride):
        return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(),
                             nn.Conv2d(cout, cout, 3, 1, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU())
    layers = [nn.Conv2d(3, 16, 3, 1, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU()]
    for cin, cout, stride in [(16, 16, 1), (16, 32, 2), (32, 64, 2)]:
        layers += [block(cin, cout, stride), block(cout, cout, 1), block(cout, cout, 1)]
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, num_classes)]
    return nn.Sequential(*layers)


def main():
    cfg = TrainConfig.from_cli()
    hvd.init()
    torch.manual_seed(0)
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    train_loader, val_loader, train_sampler = make_loaders(cfg)
    model = resnet20().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg.lr, momentum=0.9, weight_decay=cfg.weight_decay)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=cfg.epochs)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    pruner = MagnitudePruner(model)
    best = 0.0
    for epoch in range(cfg.epochs):
        train_sampler.set_epoch(epoch)
        if epoch >= cfg.prune_start and (epoch - cfg.prune_start) % cfg.prune_every == 0:
            pruner.update(cubic_sparsity(epoch, cfg))
        train_one_epoch(model, train_loader, optimizer, pruner, device)
        scheduler.step()
        acc = validate(model, val_loader, device)
        if hvd.rank() == 0:
            print(f"epoch {epoch} sparsity {cubic_sparsity(epoch, cfg):.3f} val acc {acc:.4f}")
            state = {"epoch": epoch, "model": model.state_dict(), "masks": pruner.state_dict(),
                     "optimizer": optimizer.state_dict()}
            os.makedirs(cfg.ckpt_dir, exist_ok=True)
            torch.save(state, os.path.join(cfg.ckpt_dir, "last.pth"))
            if acc > best and epoch >= cfg.prune_end:
                best = acc
                torch.save(state, os.path.join(cfg.ckpt_dir, "best_sparse.pth"))


if __name__ == "__main__":
    main()
