"""Defect classification on DeepPCB crops, multi-GPU with Horovod.

Usage:
    horovodrun -np 4 python train.py --opts batch_size=32 epochs=60
"""
import argparse
import logging
import sys

import horovod.torch as hvd

from pcbcls.config import TrainConfig
from pcbcls.engine import Trainer


def parse_args(argv=None):
    parser = argparse.ArgumentParser('pcbcls trainer')
    parser.add_argument('--opts', nargs='*', default=[], help='config overrides, key=value')
    parser.add_argument('--eval-only', action='store_true')
    return parser.parse_args(argv)


def setup_logging(rank):
    level = logging.INFO if rank == 0 else logging.WARNING
    logging.basicConfig(stream=sys.stdout, level=level,
                        format='[%(asctime)s][rank{}] %(message)s'.format(rank))


def main(argv=None):
    args = parse_args(argv)
    hvd.init()
    setup_logging(hvd.rank())
    cfg = TrainConfig().update(args.opts)
    logging.getLogger('pcbcls').info('config: %s', cfg)
    trainer = Trainer(cfg)
    if args.eval_only:
        print(trainer.evaluate())
        return
    trainer.train()


if __name__ == '__main__':
    main()
