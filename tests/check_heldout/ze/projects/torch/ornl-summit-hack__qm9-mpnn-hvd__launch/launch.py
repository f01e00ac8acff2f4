"""Launch the QM9 property-regression training on the GPUs of this allocation.

Inside a batch job (the launcher spawns the workers itself, no jsrun/mpirun needed):
    python launch.py --np 6 --epochs 100 --target gap
"""
import argparse
import os

import horovod
import horovod.torch as hvd

from qm9.train_fn import train_fn

hvd.init()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--np", type=int, default=int(os.environ.get("NGPUS", "6")))
    p.add_argument("--data", default="/gpfs/alpine/proj-shared/hack22/qm9/qm9_fp.npz")
    p.add_argument("--target", default="gap")
    p.add_argument("--epochs", type=int, default=100)
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--lr", type=float, default=5e-4)
    p.add_argument("--resume", default="")
    p.add_argument("--out", default="qm9_mpnn.pt")
    cfg = vars(p.parse_args())
    results = horovod.run(train_fn, args=(cfg,), np=cfg["np"], use_gloo=True)
    print("final validation MAE per rank:", results)


if __name__ == "__main__":
    main()
