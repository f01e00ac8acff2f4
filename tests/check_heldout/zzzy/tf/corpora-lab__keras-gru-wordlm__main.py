"""Entry point. The nightly pipeline does `from main import run; run(["--config", ...])`;
from a shell: horovodrun -np 4 python main.py --config configs/wt2_gru.json"""
import argparse
import json
import sys

from wordlm.config import LMConfig
from wordlm import pipeline


def parse(argv):
    p = argparse.ArgumentParser()
    p.add_argument('--config', default='configs/wt2_gru.json')
    p.add_argument('--epochs', type=int, default=None, help='override the config')
    p.add_argument('--dry-run', action='store_true')
    return p.parse_args(argv)


def run(argv=None):
    a = parse(argv)
    with open(a.config) as f:
        cfg = LMConfig(**json.load(f))
    if a.epochs is not None:
        cfg.epochs = a.epochs
    if a.dry_run:
        cfg.epochs, cfg.max_steps = 1, 5
    return pipeline.train(cfg)


if __name__ == '__main__':
    hist = run(sys.argv[1:])
