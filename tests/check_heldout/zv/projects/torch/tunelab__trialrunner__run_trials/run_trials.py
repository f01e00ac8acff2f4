"""Hyperparameter search driver: every trial is a Horovod job started with horovod.run.

    python run_trials.py --num-proc 4 --search random --num-samples 8
"""
import argparse
import json
import os

import horovod
from torchvision import datasets

from trialrunner import grid, random_search
from trialrunner.trainable import train_fn

SPACE = {
    "lr": (1e-4, 3e-3),
    "batch_size": [64, 128],
    "width": [16, 32, 64],
    "dropout": [0.1, 0.25, 0.5],
}


def parse_args():
    p = argparse.ArgumentParser(description="MNIST ConvNet HPO")
    p.add_argument("--num-proc", type=int, default=2)
    p.add_argument("--search", choices=["grid", "random"], default="random")
    p.add_argument("--num-samples", type=int, default=6)
    p.add_argument("--epochs", type=int, default=8)
    p.add_argument("--data-dir", default="./data")
    p.add_argument("--results-dir", default="./results")
    return p.parse_args()


def main():
    args = parse_args()
    # download once on the driver so the workers never race on it
    datasets.MNIST(args.data_dir, train=True, download=True)
    datasets.MNIST(args.data_dir, train=False, download=True)

    if args.search == "grid":
        space = dict(SPACE, lr=[1e-4, 3e-4, 1e-3])
        trials = list(grid(space))
    else:
        trials = list(random_search(SPACE, args.num_samples, seed=7))

    summary = []
    for i, params in enumerate(trials):
        trial_dir = os.path.join(args.results_dir, f"trial_{i:03d}")
        config = dict(params, epochs=args.epochs, data_dir=args.data_dir, trial_dir=trial_dir)
        print(f"=== trial {i}: {params}")
        results = horovod.run(train_fn, args=(config,), num_proc=args.num_proc)
        result = results[0]
        summary.append(result)
        with open(os.path.join(trial_dir, "result.json"), "w") as f:
            json.dump(result, f, indent=2)

    best = min(summary, key=lambda r: r["best_val_loss"])
    print("best trial:", json.dumps(best, indent=2))
    with open(os.path.join(args.results_dir, "summary.json"), "w") as f:
        json.dump(summary, f, indent=2)


if __name__ == "__main__":
    main()
