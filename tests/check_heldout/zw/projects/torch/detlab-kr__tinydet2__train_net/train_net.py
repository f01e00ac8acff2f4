#!/usr/bin/env python
"""
Training script for tinydet2 (detectron2-style) classification baselines, Horovod backend.

    horovodrun -np 8 python train_net.py --config-file configs/r50_in1k.yaml SOLVER.MAX_ITER 90000
"""
import argparse
import logging

import torch
import horovod.torch as hvd

from tinydet import comm
from tinydet.config import get_cfg
from tinydet.data import build_detection_test_loader, build_detection_train_loader
from tinydet.engine import DefaultTrainer, launch, hooks

logger = logging.getLogger("tinydet2")


def default_argument_parser():
    parser = argparse.ArgumentParser(description="tinydet2 training")
    parser.add_argument("--config-file", default="", metavar="FILE")
    parser.add_argument("--resume", action="store_true", help="resume from the last checkpoint in OUTPUT_DIR")
    parser.add_argument("--eval-only", action="store_true")
    parser.add_argument("opts", default=None, nargs=argparse.REMAINDER,
                        help="modify config options, e.g. SOLVER.BASE_LR 0.02")
    return parser


class Trainer(DefaultTrainer):
    @classmethod
    def build_train_loader(cls, cfg):
        return build_detection_train_loader(cfg)

    @classmethod
    def build_test_loader(cls, cfg):
        return build_detection_test_loader(cfg)

    @classmethod
    def build_optimizer(cls, cfg, model):
        params = [p for p in model.parameters() if p.requires_grad]
        optimizer = torch.optim.SGD(params, lr=cfg.SOLVER.BASE_LR, momentum=cfg.SOLVER.MOMENTUM,
                                    weight_decay=cfg.SOLVER.WEIGHT_DECAY)
        return hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())


def setup(args):
    cfg = get_cfg()
    if args.config_file:
        cfg.merge_from_file(args.config_file)
    cfg.merge_from_list(args.opts)
    cfg.freeze()
    logging.basicConfig(level=logging.INFO if comm.is_main_process() else logging.WARN,
                        format="[%(asctime)s] %(name)s %(levelname)s: %(message)s")
    logger.info("Rank of current process: {}. World size: {}".format(comm.get_rank(), comm.get_world_size()))
    logger.info("Running with full config:\n{}".format(cfg.dump()))
    return cfg


def main(args):
    cfg = setup(args)
    if args.eval_only:
        model = Trainer.build_model(cfg)
        Trainer.load_weights(model, cfg.MODEL.WEIGHTS)
        return Trainer.test(cfg, model)

    trainer = Trainer(cfg)
    trainer.resume_or_load(resume=args.resume)
    trainer.register_hooks([hooks.EvalHook(cfg.TEST.EVAL_PERIOD, lambda: trainer.test(cfg, trainer.model))])
    return trainer.train()


if __name__ == "__main__":
    args = default_argument_parser().parse_args()
    print("Command Line Args:", args)
    launch(main, args=(args,))
