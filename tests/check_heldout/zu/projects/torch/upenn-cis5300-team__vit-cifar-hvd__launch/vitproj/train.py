import os

import torch
import torch.nn.functional as F
import horovod.torch as hvd

from .data import cifar_loaders
from .models import TinyViT
from .utils import CSVLog, Timer, metric_average, seed_everything


def evaluate(model, loader, device):
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for x, y in loader:
            out = model(x.to(device))
            correct += (out.argmax(1).cpu() == y).sum().item()
            total += y.size(0)
    return metric_average(correct / total, "val_acc")


def run(cfg, device):
    seed_everything(cfg["seed"])
    train_loader, test_loader, sampler = cifar_loaders(cfg["data_root"], cfg["batch_size"])
    model = TinyViT(**cfg["model"]).to(device)

    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg["lr"] * hvd.size(), weight_decay=cfg["wd"])
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=cfg["lr"], epochs=cfg["epochs"],
                                                    steps_per_epoch=len(train_loader), pct_start=0.1)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    log = CSVLog(os.path.join(cfg["out"], "metrics.csv"), ["epoch", "loss", "val_acc", "sec"])
    best = 0.0
    for epoch in range(cfg["epochs"]):
        sampler.set_epoch(epoch)
        model.train()
        with Timer() as t:
            for x, y in train_loader:
                x, y = x.to(device), y.to(device)
                loss = F.cross_entropy(model(x), y, label_smoothing=0.1)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                scheduler.step()
        acc = evaluate(model, test_loader, device)
        log.write(epoch, round(loss.item(), 4), round(acc, 4), round(t.elapsed, 1))
        if hvd.rank() == 0:
            print(f"ep {epoch} loss {loss.item():.3f} acc {acc:.4f}")
            if acc > best:
                best = acc
                torch.save(model.state_dict(), os.path.join(cfg["out"], "vit_best.pt"))
    return best
