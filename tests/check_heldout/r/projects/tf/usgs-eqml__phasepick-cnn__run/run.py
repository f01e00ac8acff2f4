#!/usr/bin/env python
"""Entry point for phase-classifier training runs (P / S / noise windows, 3-component seismograms).

    salloc -N 2 --ntasks-per-node 4 --gpus-per-node 4
    srun python run.py --h5 /caldera/eqml/stead_windows.h5 --epochs 25
"""
import argparse
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("OMP_NUM_THREADS", os.environ.get("SLURM_CPUS_PER_TASK", "8"))


def get_opts(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--h5", required=True, help="HDF5 file with train/ and val/ groups")
    p.add_argument("--epochs", type=int, default=25)
    p.add_argument("--batch", type=int, default=64, help="windows per rank and step")
    p.add_argument("--lr", type=float, default=0.01, help="SGD lr; gradients are summed over ranks")
    p.add_argument("--out", default="phasepick_out")
    return p.parse_args(argv)


if __name__ == "__main__":
    opts = get_opts()
    from seisml.train import main

    main(opts)
