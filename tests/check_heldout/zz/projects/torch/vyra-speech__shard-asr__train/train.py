#!/usr/bin/env python3
# CTC acoustic model recipe -- horovod launcher
import argparse
import configparser
import os

import torch

from asr import CTCModel, Engine, VOCAB, build_loaders
from asr.distributed import broadcast_state, init_distributed, wrap_optimizer


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("-c", "--conf", default="conf/base.ini")
    ap.add_argument("--resume", default="")
    opts = ap.parse_args(argv)

    cfg = configparser.ConfigParser()
    cfg.read(opts.conf)
    dist = init_distributed()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    train_dl, heldout_dl, train_sampler = build_loaders(cfg, dist["rank"], dist["size"])
    model = CTCModel(cfg.getint("data", "n_mels"), len(VOCAB)).to(device)
    lr = cfg.getfloat("train", "lr") * dist["size"]
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)

    start = 0
    if opts.resume:  # every rank reads the (shared) checkpoint file
        ck = torch.load(opts.resume, map_location="cpu")
        model.load_state_dict(ck["model"])
        start = ck["epoch"] + 1
    broadcast_state(model, optimizer)
    optimizer = wrap_optimizer(optimizer, model, cfg.getint("train", "world_size", fallback=1))

    engine = Engine(model, optimizer, device, clip=cfg.getfloat("train", "clip"),
                    verbose=dist["rank"] == 0)
    ckpt_dir = cfg["train"]["ckpt_dir"]
    for epoch in range(start, cfg.getint("train", "epochs")):
        train_sampler.set_epoch(epoch)
        engine.train_epoch(train_dl, epoch)
        ho_loss, ter = engine.evaluate(heldout_dl)
        if dist["rank"] == 0:
            print(f"== epoch {epoch}: heldout ctc {ho_loss:.3f}  TER {100 * ter:.2f}%")
            os.makedirs(ckpt_dir, exist_ok=True)
            torch.save({"model": model.state_dict(), "epoch": epoch},
                       os.path.join(ckpt_dir, "last.pt"))


if __name__ == "__main__":
    main()
