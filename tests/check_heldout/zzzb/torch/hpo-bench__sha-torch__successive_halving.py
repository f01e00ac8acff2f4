"""Successive halving (SHA) over an MLP search space.

Every candidate is trained data-parallel on all workers; after each rung only the top
1/eta survive and get eta times more epochs.

    horovodrun -np 4 python successive_halving.py --n-configs 27 --min-epochs 1 --eta 3
"""
import argparse
import logging
import os

import torch
import horovod.torch as hvd

from sha.data import load_table, split_and_shard
from sha.leaderboard import Leaderboard
from sha.space import describe, sample_configs
from sha.trainer import CandidateTrainer

logger = logging.getLogger("sha")


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=None, help=".npz with x, y (synthetic task if omitted)")
    ap.add_argument("--n-configs", type=int, default=27)
    ap.add_argument("--min-epochs", type=int, default=1)
    ap.add_argument("--eta", type=int, default=3)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="results/sha")
    return ap.parse_args()


def run_sha(args, train_set, val_set, in_dim, num_classes):
    board = Leaderboard(eta=args.eta)
    configs = sample_configs(args.n_configs, seed=args.seed)
    trainers = [CandidateTrainer(c, train_set, val_set, in_dim, num_classes, args.batch_size) for c in configs]
    rung, epochs = 0, args.min_epochs
    while True:
        scores = []
        for t in trainers:
            t.train(epochs)
            score = t.evaluate()
            board.record(rung, t.cfg, score, t.epochs_done)
            scores.append(score)
            if hvd.rank() == 0:
                logger.info("rung %d  %s  acc=%.4f", rung, describe(t.cfg), score)
        if len(trainers) == 1:
            return board, trainers[0]
        trainers = board.promote(rung, trainers, scores)
        rung += 1
        epochs *= args.eta


def main():
    args = parse()
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    torch.set_num_threads(max(1, os.cpu_count() // hvd.local_size()))
    logging.basicConfig(level=logging.INFO, format=f"[{hvd.rank()}] %(message)s")

    x, y = load_table(args.data)
    train_set, val_set = split_and_shard(x, y, hvd.rank(), hvd.size())
    num_classes = int(y.max()) + 1

    board, winner = run_sha(args, train_set, val_set, x.shape[1], num_classes)

    if hvd.rank() == 0:
        board.dump(args.out)
        torch.save({"config": winner.cfg, "state_dict": winner.model.state_dict()},
                   os.path.join(args.out, "winner.pt"))
        logger.info("winner: %s", describe(winner.cfg))


if __name__ == "__main__":
    main()
