# Copyright 2021 audiogen-hvd authors. Apache-2.0.
"""Entry point.  Either start it under horovodrun / mpirun:

    horovodrun -np 4 python train.py runs/wg data/spec_npz

or let it spawn its own workers (gloo) with --num_proc:

    python train.py runs/wg data/spec_npz --num_proc 4
"""
from argparse import ArgumentParser
import os

from wavegrad.params import params
from wavegrad.learner import train_worker
from wavegrad.launcher import spawn_workers, under_horovodrun


def _get_parser():
    parser = ArgumentParser(description="train (or resume training) a WaveGrad model")
    parser.add_argument("model_dir", help="directory in which to store model checkpoints and training logs")
    parser.add_argument("data_dirs", nargs="+", help="space separated list of directories from which to read .npz clips")
    parser.add_argument("--max_steps", default=None, type=int, help="maximum number of training steps")
    parser.add_argument("--num_proc", default=1, type=int, help="workers to spawn when not under horovodrun")
    parser.add_argument("--fp16", action="store_true", default=False, help="use 16-bit floating point operations")
    parser.add_argument("--params", default="", help="comma separated name=value pairs to override params")
    return parser


def main(argv=None):
    args = _get_parser().parse_args(argv)
    params.override(args.params)
    if under_horovodrun() or args.num_proc <= 1:
        train_worker(args, params)
    else:
        spawn_workers(train_worker, args, params, num_proc=args.num_proc)


if __name__ == "__main__":
    main()
