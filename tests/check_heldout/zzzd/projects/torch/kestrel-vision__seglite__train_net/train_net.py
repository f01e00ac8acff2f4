"""seglite training entry point (detectron-style).

Works under any launcher: the backend is detected from the environment unless
--backend is given.
"""
import argparse
import json
import logging
import os

import torch
import torch.nn as nn

from data import ToyShapes, build_dataloader
from engine import dist
from engine.checkpoint import latest_checkpoint, save_checkpoint
from engine.trainer import evaluate, train_one_epoch


def conv_bn(cin, cout, stride=1):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class SegLite(nn.Module):
    def __init__(self, num_classes, width=32):
        super().__init__()
        self.enc = nn.Sequential(conv_bn(3, width), conv_bn(width, width * 2, 2), conv_bn(width * 2, width * 4, 2))
        self.head = nn.Conv2d(width * 4, num_classes, 1)

    def forward(self, x):
        out = self.head(self.enc(x))
        return nn.functional.interpolate(out, size=x.shape[-2:], mode="bilinear", align_corners=False)


def get_args():
    parser = argparse.ArgumentParser("seglite")
    parser.add_argument("--config", default=os.path.join(os.path.dirname(__file__), "configs", "toy.json"))
    parser.add_argument("--backend", default="auto", choices=["auto", "horovod", "ddp", "none"])
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("opts", nargs=argparse.REMAINDER, help="KEY=VALUE overrides")
    args = parser.parse_args()
    with open(args.config) as f:
        cfg = json.load(f)
    for kv in args.opts:
        k, v = kv.split("=", 1)
        cfg[k] = type(cfg[k])(v) if k in cfg else v
    return args, cfg


def main():
    args, cfg = get_args()
    backend = dist.init(args.backend)
    logging.basicConfig(level=logging.INFO, format=f"[%(asctime)s r{dist.rank()}] %(message)s")
    logger = logging.getLogger("seglite")
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    logger.info("backend=%s world_size=%d", backend, dist.world_size())

    train_set = ToyShapes(cfg["train_samples"], cfg["image_size"], cfg["num_classes"], seed=0)
    val_set = ToyShapes(cfg["val_samples"], cfg["image_size"], cfg["num_classes"], seed=1)
    train_loader = build_dataloader(train_set, cfg["batch_size"], dist.world_size(), dist.rank(), train=True)
    val_loader = build_dataloader(val_set, cfg["batch_size"], dist.world_size(), dist.rank(), train=False)

    model = SegLite(cfg["num_classes"]).to(device)
    lr = cfg["base_lr"] * (dist.world_size() if cfg.get("scale_lr", True) else 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9, weight_decay=1e-4)
    total_iters = cfg["max_epochs"] * len(train_loader)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda it: (1 - it / total_iters) ** 0.9)

    start_epoch = 0
    ckpt = latest_checkpoint(cfg["output_dir"]) if args.resume else None
    if ckpt is not None:
        state = torch.load(ckpt, map_location="cpu")
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        start_epoch = state["epoch"] + 1

    if backend == "horovod":
        hvd = dist._hvd
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(optimizer, root_rank=0)
        optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    elif backend == "ddp":
        model = nn.parallel.DistributedDataParallel(model)

    for epoch in range(start_epoch, cfg["max_epochs"]):
        train_loader.sampler.set_epoch(epoch)
        train_one_epoch(model, train_loader, optimizer, scheduler, epoch, device)
        metrics = evaluate(model, val_loader, cfg["num_classes"], device)
        logger.info("epoch %d: %s", epoch, json.dumps(metrics))
        save_checkpoint(getattr(model, "module", model), optimizer, epoch, cfg["output_dir"])


if __name__ == "__main__":
    main()
