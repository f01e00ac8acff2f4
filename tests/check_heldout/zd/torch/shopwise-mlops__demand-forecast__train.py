"""Weekly demand forecast training - pipeline step `train`.

    horovodrun -np 8 -H node1:4,node2:4 python train.py --config configs/forecast.json
"""
import argparse

import torch
import horovod.torch as hvd

from pipeline.config import load_config
from pipeline.data import build_loaders
from pipeline.tracking import log_event
from pipeline.trainer import Forecaster, Trainer


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--config", default="configs/forecast.json")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE")
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    cfg = load_config(args.config, args.overrides)

    hvd.init()
    use_cuda = torch.cuda.is_available()
    if use_cuda:
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if use_cuda else "cpu")
    torch.manual_seed(42)

    optim_cfg = cfg["optim"]
    train_loader, val_loader, sampler = build_loaders(cfg["dataset"], optim_cfg["batch_size"])
    model = Forecaster(cfg["dataset"]["horizon"], cfg["model"]["hidden"], cfg["model"]["layers"]).to(device)
    # linear scaling rule: lr grows with the number of workers
    optimizer = torch.optim.Adam(model.parameters(), lr=optim_cfg["lr"] * hvd.local_size())
    trainer = Trainer(model, optimizer, device, cfg["output_dir"], optim_cfg["patience"])
    log_event("start", world_size=hvd.size(), config=cfg)

    for epoch in range(optim_cfg["epochs"]):
        sampler.set_epoch(epoch)
        trainer.train_epoch(train_loader)
        val_mae = trainer.validate(val_loader)
        log_event("epoch", epoch=epoch, val_mae=val_mae)
        if trainer.maybe_checkpoint(epoch, val_mae):
            log_event("early_stop", epoch=epoch, best=trainer.best)
            break


if __name__ == "__main__":
    main()
