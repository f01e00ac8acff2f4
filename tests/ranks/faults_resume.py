"""Rank script for tests/test_resume4.py and tests/test_checkpoint.py: steps_*.py's checkpoint training,
once per directory.

    mpirun -n 4 python tests/ranks/faults_resume.py DIR [DIR ...] [--epochs E] [--optimizer adam|sgd]
                                                    [--framework torch|tensorflow]

Each directory in turn is trained to --epochs, resuming from what it already holds: an empty directory
gives an uninterrupted run, the directory of a killed run its resumption. Both in one launch, because a
launch costs 10-90 s of imports on the 2-core test machine. Each run starts with `RUN <rank> <dir>`.
"""
import argparse
import importlib

MODULES = {"torch": "steps_torch", "tensorflow": "steps_tf"}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--optimizer", default="adam", help="torch only (TensorFlow's checkpoint check uses Adam)")
    ap.add_argument("--framework", choices=sorted(MODULES), default="torch")
    args = ap.parse_args()
    steps = importlib.import_module(MODULES[args.framework])
    ctx = steps.hk.init(seed=0, threads=1)
    for d in args.dirs:
        print("RUN", ctx.rank, d, flush=True)
        # checkpoint() seeds its data and model itself, so a second run in this process starts afresh.
        steps.checkpoint(ctx, argparse.Namespace(dir=d, epochs=args.epochs, kill_after=-1, optimizer=args.optimizer))


if __name__ == "__main__":
    main()
