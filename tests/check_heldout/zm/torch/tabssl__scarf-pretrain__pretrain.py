"""SCARF-style contrastive pretraining for tabular data with a MoCo momentum encoder.

    horovodrun -np 4 python pretrain.py --csv data/covtype.csv --label-col Cover_Type
"""
import argparse
import os

import torch
import horovod.torch as hvd

from scarf.config import PretrainConfig
from scarf.data import load_table, partition, make_loader
from scarf.engine import Trainer
from scarf.model import MoCoTab


def cli():
    ap = argparse.ArgumentParser()
    ap.add_argument("--csv", required=True)
    ap.add_argument("--label-col", default=None, help="only used for the linear probe")
    ap.add_argument("--config", default=None, help="optional JSON overriding PretrainConfig")
    ap.add_argument("--resume", default=None)
    ap.add_argument("--output", default="outputs/scarf")
    return ap.parse_args()


def main():
    args = cli()
    cfg = PretrainConfig.from_json(args.config) if args.config else PretrainConfig()

    hvd.init()
    torch.manual_seed(cfg.seed)
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    features, labels = load_table(args.csv, args.label_col)
    my_rows = partition(len(features), hvd.rank(), hvd.size(), seed=cfg.seed)
    loader = make_loader(features, my_rows, cfg.batch_size, cfg.corruption_rate)

    model = MoCoTab(features.shape[1], cfg.hidden, cfg.emb_dim, cfg.queue_size,
                    cfg.momentum, cfg.temperature).to(device)
    trainer = Trainer(model, cfg, device, output_dir=args.output, steps_per_epoch=len(loader))

    start_epoch = 0
    if args.resume and os.path.exists(args.resume):
        start_epoch = trainer.load(args.resume)
    trainer.sync()

    for epoch in range(start_epoch, cfg.epochs):
        loss = trainer.train_epoch(loader, epoch)
        if trainer.is_master:
            probe = trainer.linear_probe(features, labels) if labels is not None else float("nan")
            print(f"epoch {epoch:3d}  contrastive {loss:.4f}  probe_acc {probe:.4f}", flush=True)
            trainer.save(epoch)


if __name__ == "__main__":
    main()
