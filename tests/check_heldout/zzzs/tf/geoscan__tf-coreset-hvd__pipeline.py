"""Data-selection pipeline for land-cover tiles.

stages:  prepare -> (select -> train -> report) x rounds
Run under horovodrun / mpirun; every stage runs on every worker.

    horovodrun -np 4 python pipeline.py -c configs/eurosat_feats.yaml.json
"""
import argparse
import sys

from cstf.config import Config
from cstf import runtime
from cstf.stages import prepare_stage, train_stage, select_stage, report_stage


def build_argparser():
    ap = argparse.ArgumentParser(prog="tf-coreset-hvd")
    ap.add_argument("-c", "--config", default="configs/eurosat_feats.json")
    ap.add_argument("--set", nargs="*", default=[], help="override key=value")
    ap.add_argument("--dry-run", action="store_true")
    return ap


def run_pipeline(cfg):
    ctx = runtime.init(cfg)
    state = prepare_stage(cfg, ctx)
    for rnd in range(cfg.rounds):
        state.round = rnd
        train_stage(cfg, ctx, state)
        report_stage(cfg, ctx, state)
        if rnd < cfg.rounds - 1:
            select_stage(cfg, ctx, state)
    runtime.finish(ctx, state)
    return state.table


def main(argv=None):
    args = build_argparser().parse_args(argv)
    cfg = Config.from_file(args.config).override(args.set)
    if args.dry_run:
        print(cfg)
        return 0
    run_pipeline(cfg)
    return 0


if __name__ == "__main__":
    sys.exit(main())
