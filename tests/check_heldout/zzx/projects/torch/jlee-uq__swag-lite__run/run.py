#!/usr/bin/env python3
import argparse
import json
import os

import torch
import torchvision
import horovod.torch as hvd

from swag import SWAGDiag
from swag.loaders import cifar10_loaders
from swag.train_utils import adjust_lr, global_metrics, predict_probs, train_epoch

DEFAULTS = {
    "data": "~/data", "epochs": 300, "swa_start": 161, "lr": 0.05, "swa_lr": 0.01,
    "batch_size": 128, "wd": 3e-4, "n_samples": 30, "out": "out/swag", "seed": 1,
}


def load_config():
    ap = argparse.ArgumentParser(description="SWAG-diag with Horovod")
    ap.add_argument("--config", help="JSON file overriding DEFAULTS")
    ap.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE")
    a = ap.parse_args()
    cfg = dict(DEFAULTS)
    if a.config:
        with open(a.config) as f:
            cfg.update(json.load(f))
    for kv in a.set:
        k, v = kv.split("=", 1)
        cfg[k] = type(DEFAULTS[k])(v)
    return cfg


def main():
    cfg = load_config()
    hvd.init()
    torch.manual_seed(cfg["seed"])
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    device = "cuda" if torch.cuda.is_available() else "cpu"

    train_loader, test_loader, sampler = cifar10_loaders(cfg["data"], cfg["batch_size"])
    model = torchvision.models.resnet18(num_classes=10).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg["lr"] * hvd.size(), momentum=0.9,
                                weight_decay=cfg["wd"])
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    swag = SWAGDiag(model)
    for epoch in range(cfg["epochs"]):
        sampler.set_epoch(epoch)
        lr = adjust_lr(optimizer, epoch, cfg)
        loss = train_epoch(model, train_loader, optimizer, device)
        if epoch + 1 >= cfg["swa_start"]:
            swag.collect(model)
        if hvd.rank() == 0:
            print(f"epoch {epoch:3d} lr {lr:.4f} train_loss {loss:.4f} swag_n {swag.n}")
            if (epoch + 1) % 25 == 0:
                os.makedirs(cfg["out"], exist_ok=True)
                torch.save({"epoch": epoch, "model": model.state_dict(), "swag": swag.state_dict()},
                           os.path.join(cfg["out"], f"ckpt_{epoch + 1}.pt"))

    # Bayesian model averaging over SWAG samples (same generator on every worker)
    gen = torch.Generator().manual_seed(cfg["seed"])
    bma, targets = 0.0, None
    for _ in range(cfg["n_samples"]):
        sampled = swag.sample(generator=gen)
        # BN statistics: the running stats of the last collected model are kept
        probs, targets = predict_probs(sampled, test_loader, device)
        bma = bma + probs / cfg["n_samples"]
    res = global_metrics(bma, targets)
    if hvd.rank() == 0:
        print("SWAG BMA:", json.dumps(res))
        os.makedirs(cfg["out"], exist_ok=True)
        torch.save({"swag": swag.state_dict(), "cfg": cfg}, os.path.join(cfg["out"], "swag_final.pt"))


if __name__ == "__main__":
    main()
