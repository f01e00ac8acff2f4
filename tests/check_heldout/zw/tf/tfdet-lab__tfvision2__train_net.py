#!/usr/bin/env python
"""tfvision2 training entry point (detectron2-style), Horovod + tf.GradientTape.

    horovodrun -np 8 python train_net.py --config-file configs/cls_r50.py SOLVER.BASE_LR 0.2
"""
import argparse
import logging
import os

import tensorflow as tf

from tfvision import comm
from tfvision.config import get_cfg
from tfvision.data import build_train_dataset, build_test_dataset
from tfvision.engine import build_trainer, inference_on_dataset

logger = logging.getLogger("tfvision2")


def default_argument_parser():
    parser = argparse.ArgumentParser("tfvision2 training")
    parser.add_argument("--config-file", default="", metavar="FILE")
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("--eval-only", action="store_true")
    parser.add_argument("opts", nargs=argparse.REMAINDER, default=[])
    return parser


def setup_logger(output_dir, distributed_rank=0):
    fmt = "[%(asctime)s %(name)s] " + ("" if distributed_rank == 0 else f"[rank{distributed_rank}] ") + "%(message)s"
    logging.basicConfig(level=logging.INFO if distributed_rank == 0 else logging.WARNING, format=fmt)
    if distributed_rank == 0:
        os.makedirs(output_dir, exist_ok=True)
        logging.getLogger().addHandler(logging.FileHandler(os.path.join(output_dir, "log.txt")))


def setup(args):
    cfg = get_cfg()
    if args.config_file:
        cfg.merge_from_file(args.config_file)
    cfg.merge_from_list(args.opts)
    setup_logger(cfg.OUTPUT_DIR, distributed_rank=comm.get_rank())
    logger.info("Command line arguments: %s", args)
    logger.info("Full config:\n%s", cfg)
    return cfg


def main(args):
    cfg = setup(args)
    comm.init_dist()

    model = tf.keras.applications.ResNet50(weights=None, input_shape=(cfg.INPUT.SIZE, cfg.INPUT.SIZE, 3),
                                           classes=cfg.MODEL.NUM_CLASSES)
    test_ds = build_test_dataset(cfg)
    ckpt = tf.train.Checkpoint(model=model)
    if args.eval_only:
        ckpt.restore(tf.train.latest_checkpoint(cfg.OUTPUT_DIR)).expect_partial()
        return inference_on_dataset(model, test_ds)

    train_ds = build_train_dataset(cfg)
    trainer = build_trainer(cfg, model, train_ds)
    trainer.resume_or_load(resume=args.resume)
    trainer.eval_fn = lambda: inference_on_dataset(model, test_ds)
    trainer.train()


if __name__ == "__main__":
    main(default_argument_parser().parse_args())
