import dataclasses
import logging

import click
import torch

from clickformer.config import TrainConfig
from clickformer import dist_utils
from clickformer.data import build_loaders
from clickformer.engine import Trainer
from clickformer.model import TinyFormer

logger = logging.getLogger("clickformer")


def _options_from_dataclass(cls):
    """Turn every field of the dataclass into a --flag with the field default."""
    def deco(fn):
        for f in reversed(dataclasses.fields(cls)):
            flag = "--" + f.name.replace("_", "-")
            if f.type is bool or f.type == "bool":
                fn = click.option(flag + "/--no-" + f.name.replace("_", "-"),
                                  default=f.default, show_default=True)(fn)
            else:
                fn = click.option(flag, default=f.default, show_default=True,
                                  type=type(f.default))(fn)
        return fn
    return deco


@click.group()
@click.option("--log-level", default="INFO")
def cli(log_level):
    logging.basicConfig(level=log_level, format="%(asctime)s %(levelname)s %(message)s")


@cli.command()
@_options_from_dataclass(TrainConfig)
def train(**kwargs):
    cfg = TrainConfig(**kwargs)
    dist_utils.setup(cfg)

    train_loader, val_loader, train_sampler = build_loaders(cfg)
    model = TinyFormer(cfg.vocab_size, cfg.d_model, cfg.n_heads, cfg.n_layers, cfg.n_classes)
    model.to(dist_utils.device())

    trainer = Trainer(model, cfg, train_sampler=train_sampler)
    trainer.maybe_resume()
    trainer.sync_initial_state()

    for epoch in range(trainer.start_epoch, cfg.epochs):
        trainer.train_one_epoch(train_loader, epoch)
        metrics = trainer.validate(val_loader)
        if dist_utils.is_main():
            logger.info("epoch %d: %s", epoch, metrics)
        trainer.save(epoch, metrics)


@cli.command()
@click.argument("ckpt")
def inspect(ckpt):
    state = torch.load(ckpt, map_location="cpu")
    click.echo("epoch=%s metrics=%s" % (state["epoch"], state.get("metrics")))


if __name__ == "__main__":
    cli()
