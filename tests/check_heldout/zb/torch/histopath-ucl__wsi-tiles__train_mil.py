"""Attention-MIL slide classifier on pre-extracted tile embeddings (CTransPath features, 768-d).

Submitted through the lab's SLURM template; the template exports MIL_* variables (see wsimil/config.py).
"""
import sys

import horovod.torch as hvd

from wsimil.config import MILConfig
from wsimil.data import SlideBags, rank_loader, full_loader
from wsimil.model import AttentionMIL
from wsimil.trainer import Trainer


def main(argv):
    hvd.init()
    cfg = MILConfig.from_env(argv)
    device = cfg.device(hvd.local_rank())

    train_set = SlideBags(cfg.split_file, "train", cfg.feature_dir, cfg.bag_size)
    val_set = SlideBags(cfg.split_file, "val", cfg.feature_dir, cfg.bag_size)
    per_rank_batch = cfg.global_batch // hvd.size()
    train_loader = rank_loader(train_set, per_rank_batch, hvd.rank(), hvd.size(), cfg.seed)
    val_loader = full_loader(val_set, batch_size=16) if hvd.rank() == 0 else None

    model = AttentionMIL(cfg.feat_dim, cfg.hidden, cfg.n_classes).to(device)
    trainer = Trainer(model, cfg, device)
    trainer.fit(train_loader, val_loader)
    if hvd.rank() == 0:
        print(f"best val AUC {trainer.best_auc:.4f} at epoch {trainer.best_epoch}")


if __name__ == "__main__":
    main(sys.argv[1:])
