# -*- coding: utf-8 -*-
# ResNet training with Horovod, typer CLI.
#   horovodrun -np 8 -H host1:4,host2:4 python main.py train --config configs/resnet18.yaml
#   python main.py list-optimizers
from pathlib import Path
from typing import Optional

import typer
import torch
import horovod.torch as hvd

from tyres.config import ExperimentConfig
from tyres import registry
from tyres.data import get_loaders
from tyres.trainer import Trainer
from tyres import utils

app = typer.Typer(add_completion=False)


@app.command()
def train(
    config: Path = typer.Option(Path("configs/resnet18.yaml"), help="yaml experiment file"),
    optimizer: Optional[str] = typer.Option(None, help="override optim.name"),
    lr: Optional[float] = typer.Option(None, help="override optim.lr"),
    epochs: Optional[int] = typer.Option(None),
    amp: bool = typer.Option(False, help="mixed precision (cuda only)"),
    out_dir: Path = typer.Option(Path("outputs")),
):
    hvd.init()
    cfg = ExperimentConfig.from_yaml(config)
    if optimizer:
        cfg.optim.name = optimizer
    if lr is not None:
        cfg.optim.lr = lr
    if epochs is not None:
        cfg.epochs = epochs
    cfg.out_dir = str(out_dir)

    utils.seed_everything(cfg.seed)
    use_cuda = torch.cuda.is_available()
    if use_cuda:
        torch.cuda.set_device(hvd.local_rank())

    train_loader, val_loader = get_loaders(cfg.data, rank=hvd.rank(), world_size=hvd.size())

    model = registry.build_model(cfg.model)
    if use_cuda:
        model.cuda()
    opt = registry.build_optimizer(cfg.optim, model.parameters())
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters(),
                                   backward_passes_per_step=cfg.optim.accum_steps)
    sched = registry.build_scheduler(cfg.optim, opt, steps_per_epoch=len(train_loader),
                                     epochs=cfg.epochs)

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)

    trainer = Trainer(model, opt, sched, cfg, amp=amp and use_cuda)
    best = 0.0
    for epoch in range(cfg.epochs):
        train_loader.sampler.set_epoch(epoch)
        tr = trainer.fit_epoch(train_loader, epoch)
        va = trainer.evaluate(val_loader)
        if hvd.rank() == 0:
            typer.echo(f"[{epoch:03d}] loss={tr['loss']:.4f} val_loss={va['loss']:.4f} "
                       f"val_top1={va['top1']:.3f}")
        is_best = va["top1"] > best
        best = max(best, va["top1"])
        utils.save_checkpoint(cfg.out_dir, model, opt, epoch, va, is_best=is_best)


@app.command("list-optimizers")
def list_optimizers():
    for name in sorted(registry.OPTIMIZERS):
        typer.echo(name)


if __name__ == "__main__":
    app()
