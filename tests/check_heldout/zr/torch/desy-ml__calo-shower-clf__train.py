"""Hadronic vs electromagnetic shower classifier for the calorimeter test-beam data.

Launched from slurm/train.sbatch as
    srun python train.py --config configs/h6_2023.json
"""
import math
import os

import torch
import horovod.torch as hvd

from calo.config import Config
from calo.data import rank_files, ShowerStream
from calo.model import ShowerCNN
from calo.engine import Trainer
from calo import ckpt


def warmup_cosine(warmup_steps, total_steps):
    def f(step):
        if step < warmup_steps:
            return (step + 1) / warmup_steps
        t = (step - warmup_steps) / max(1, total_steps - warmup_steps)
        return 0.5 * (1 + math.cos(math.pi * t))
    return f


def run(cfg: Config):
    hvd.init()
    torch.manual_seed(cfg.seed)
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda", hvd.local_rank())
    else:
        device = torch.device("cpu")
    if hvd.rank() == 0:
        print(cfg.dump(), flush=True)

    train = ShowerStream(rank_files(cfg.data_dir, "train"), cfg.batch_size, shuffle=True, seed=cfg.seed)
    val = ShowerStream(rank_files(cfg.data_dir, "val"), 512, shuffle=False)

    model = ShowerCNN().to(device)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.base_lr * hvd.size(), weight_decay=cfg.weight_decay)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, warmup_cosine(cfg.warmup_epochs * len(train), cfg.epochs * len(train)))

    start, best = ckpt.try_resume(cfg.out_dir, model, opt, sched) if cfg.resume else (0, 0.0)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())

    trainer = Trainer(model, opt, sched, device, cfg.log_every)
    for epoch in range(start, cfg.epochs):
        trainer.train_epoch(train, epoch)
        res = trainer.evaluate(val)
        best = max(best, res["auc"])
        if hvd.rank() == 0:
            print(f"epoch {epoch}: val auc {res['auc']:.4f} bce {res['bce']:.4f} "
                  f"({res['n']} showers) best {best:.4f}", flush=True)
        ckpt.save(cfg.out_dir, model, opt, sched, epoch, best)


if __name__ == "__main__":
    run(Config.from_cli())
