"""HW4 part 3: distributed fine-tuning.

    horovodrun -np 4 python train.py --set train.epochs=12
"""
import argparse
import copy
import os

import torch
import horovod.torch as hvd
from torchvision import models

from hw4.config import DEFAULTS, merge
from hw4.data import build_loaders
from hw4.engine import Trainer


def parse_args():
    parser = argparse.ArgumentParser(description="CS182 HW4 finetuning")
    parser.add_argument("--set", nargs="*", default=[], help="overrides, key=value")
    parser.add_argument("--no-resume", action="store_true")
    return parser.parse_args()


def main():
    args = parse_args()
    cfg = merge(copy.deepcopy(DEFAULTS), dict(kv.split("=", 1) for kv in args.set))

    hvd.init()
    torch.manual_seed(cfg["seed"])
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda")
    else:
        device = torch.device("cpu")

    train_loader, val_loader, train_sampler = build_loaders(cfg, hvd.size(), hvd.rank())

    model = models.resnet18(weights="IMAGENET1K_V1")
    model.fc = torch.nn.Linear(model.fc.in_features, 10)
    for name, p in model.named_parameters():
        p.requires_grad = name.startswith("fc.")
    model.to(device)

    lr = cfg["train"]["base_lr"] * hvd.size()
    optimizer = torch.optim.SGD(model.fc.parameters(), lr=lr,
                                momentum=cfg["train"]["momentum"],
                                weight_decay=cfg["train"]["weight_decay"])
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

    start_epoch = 0
    last = os.path.join(cfg["out_dir"], "last.pt")
    if os.path.exists(last) and not args.no_resume:
        ckpt = torch.load(last, map_location="cpu")
        model.load_state_dict(ckpt["model"])
        start_epoch = ckpt["epoch"] + 1
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    trainer = Trainer(model, optimizer, cfg, device, lr)
    if start_epoch >= cfg["train"]["unfreeze_at"]:
        trainer.unfreeze()

    for epoch in range(start_epoch, cfg["train"]["epochs"]):
        if epoch == cfg["train"]["unfreeze_at"]:
            trainer.unfreeze()
        train_sampler.set_epoch(epoch)
        loss = trainer.train_epoch(train_loader, epoch)
        acc = trainer.evaluate(val_loader)
        trainer.save(epoch, acc)
        trainer.log(epoch, loss, acc)
        if hvd.rank() == 0:
            print(f"epoch {epoch}: val acc {acc:.4f}")


if __name__ == "__main__":
    main()
