"""Handwritten line recognition (IAM + synthetic lines), STN + CRNN, CTC loss, Horovod."""
import logging

import horovod.torch as hvd
import torch

from htr.config import parse_config
from htr.data import build_loaders, collect_charset
from htr.engine import Trainer


def main():
    cfg = parse_config()
    hvd.init()
    cfg.world_size = hvd.size()
    cfg.local_rank = hvd.local_rank()
    if torch.cuda.is_available():
        torch.cuda.set_device(cfg.local_rank)

    logging.basicConfig(level=logging.INFO, format=f"[%(asctime)s r{hvd.rank()}] %(message)s")
    torch.manual_seed(0)

    charset = collect_charset(cfg.real_list, cfg.synth_list, cfg.val_list)
    train_loader, val_loader, sampler = build_loaders(cfg, charset)
    Trainer(cfg, charset, train_loader, val_loader, sampler).fit()


if __name__ == "__main__":
    main()
