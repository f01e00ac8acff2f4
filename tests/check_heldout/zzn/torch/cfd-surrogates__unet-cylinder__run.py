"""U-Net surrogate for mean flow past a cylinder (data loss + divergence-free penalty).

Example:
    horovodrun -np 4 python run.py --epochs 350 --t0 50 --t-mult 2
"""
import os

import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd

from surrogate import TrainConfig
from surrogate.data import build_datasets
from surrogate.trainer import Trainer
from surrogate.unet import UNet


def main(cfg: TrainConfig):
    hvd.init()
    torch.manual_seed(cfg.seed)

    train_set, val_set = build_datasets(cfg.data_dir)
    train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True,
                                       seed=cfg.seed)
    val_sampler = DistributedSampler(val_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_set, batch_size=cfg.batch_size, sampler=train_sampler,
                              num_workers=cfg.workers, pin_memory=True, drop_last=True)
    val_loader = DataLoader(val_set, batch_size=cfg.batch_size, sampler=val_sampler, num_workers=cfg.workers)

    model = UNet(c=cfg.base_channels)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr * hvd.size(), weight_decay=cfg.weight_decay)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    scheduler = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(optimizer, T_0=cfg.t0, T_mult=cfg.t_mult,
                                                                     eta_min=1e-6)
    trainer = Trainer(model, optimizer, scheduler, cfg, stats=(train_set.mean, train_set.std))

    start, best = 0, float("inf")
    last = os.path.join(cfg.out_dir, "last.pt")
    if hvd.rank() == 0 and os.path.isfile(last):
        state = torch.load(last, map_location="cpu")
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        start, best = state["epoch"] + 1, state["best"]
    start, best = hvd.broadcast_object((start, best), root_rank=0, name="resume")
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    scheduler.last_epoch = start - 1

    for epoch in range(start, cfg.epochs):
        train_sampler.set_epoch(epoch)
        trainer.train_epoch(train_loader, epoch)
        val_mse, val_div = trainer.evaluate(val_loader)
        if hvd.rank() == 0:
            print(f"epoch {epoch:03d}  val mse {val_mse:.4e}  div {val_div:.3e}  "
                  f"lr {optimizer.param_groups[0]['lr']:.2e}", flush=True)
        if val_mse < best:
            best = val_mse
            trainer.save(os.path.join(cfg.out_dir, "best.pt"), epoch, best)
        if hvd.rank() == 0:
            trainer.save(last, epoch, best)


if __name__ == "__main__":
    main(TrainConfig.from_cli())
