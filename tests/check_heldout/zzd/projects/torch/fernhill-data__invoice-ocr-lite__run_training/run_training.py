"""Train the field-crop classifier used by the invoice OCR pipeline.

    horovodrun -np 2 -H localhost:2 python run_training.py --config configs/crops_small.json
"""
import argparse
import json
import logging

import horovod.torch as hvd

from ocrlite import dist
from ocrlite.config import TrainConfig
from ocrlite.data import build_loaders
from ocrlite.model import CropNet
from ocrlite.trainer import Trainer

logger = logging.getLogger("ocrlite")


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--config", default=None, help="json file overriding TrainConfig fields")
    p.add_argument("--epochs", type=int, default=None)
    p.add_argument("--resume", action="store_true")
    return p.parse_args()


def load_config(args):
    cfg = TrainConfig()
    if args.config:
        with open(args.config) as fh:
            for k, v in json.load(fh).items():
                setattr(cfg, k, v)
    if args.epochs is not None:
        cfg.epochs = args.epochs
    return cfg


def main():
    args = parse_args()
    cfg = load_config(args)
    device = dist.setup()
    logging.basicConfig(level=logging.INFO if dist.is_main() else logging.WARNING,
                        format="%(asctime)s %(levelname)s %(message)s")
    logger.info("running on %d workers, device=%s", hvd.size(), device)

    train_dl, val_dl, train_sampler = build_loaders(cfg)
    model = CropNet(num_classes=cfg.num_classes, width=cfg.width).to(device)

    trainer = Trainer(model, cfg, device, train_sampler=train_sampler)
    if args.resume:
        trainer.load(cfg.ckpt_path)
    # everyone starts from rank 0's weights / optimizer state
    hvd.broadcast_parameters(trainer.model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(trainer.optimizer, root_rank=0)
    trainer.start_epoch = hvd.broadcast_object(trainer.start_epoch, root_rank=0)

    trainer.fit(train_dl, val_dl)


if __name__ == "__main__":
    main()
