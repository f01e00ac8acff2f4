import argparse
import json
import logging

import torch
import horovod.torch as hvd

from epic.data import make_loaders
from epic.model import R2Plus1D
from epic.trainer import Trainer

DEFAULTS = {
    "train_segments": 640, "val_segments": 160, "batch_size": 8, "workers": 2,
    "lr": 0.005, "momentum": 0.9, "weight_decay": 1e-4,
    "epochs": 30, "warmup_epochs": 2, "lr_steps": [20, 26],
    "out_dir": "output/r2plus1d_epic", "save_every": 2,
}


def get_config():
    ap = argparse.ArgumentParser("R(2+1)D on EPIC-Kitchens verbs/nouns")
    ap.add_argument("--config", help="optional JSON overriding DEFAULTS")
    ap.add_argument("--opts", nargs="*", default=[], help="key=value overrides")
    a = ap.parse_args()
    cfg = dict(DEFAULTS)
    if a.config:
        with open(a.config) as fh:
            cfg.update(json.load(fh))
    for kv in a.opts:
        k, v = kv.split("=", 1)
        cfg[k] = type(cfg[k])(v)
    return cfg


def main():
    cfg = get_config()
    hvd.init()
    logging.basicConfig(level=logging.INFO, format=f"[rank {hvd.rank()}] %(message)s")
    device = torch.device("cpu")
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda")

    train_loader, val_loader, sampler = make_loaders(cfg, hvd.rank(), hvd.size())
    model = R2Plus1D().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=cfg["momentum"],
                                weight_decay=cfg["weight_decay"])
    trainer = Trainer(model, optimizer, cfg, device)

    for epoch in range(cfg["epochs"]):
        trainer.epoch = epoch
        sampler.set_epoch(epoch)
        loss = trainer.train_epoch(train_loader)
        verb, noun = trainer.validate(val_loader)
        if hvd.rank() == 0:
            logging.info("epoch %d loss %.3f verb@1 %.3f noun@1 %.3f", epoch, loss, verb, noun)
        if (epoch + 1) % cfg["save_every"] == 0:
            trainer.save_checkpoint(cfg["out_dir"])


if __name__ == "__main__":
    main()
