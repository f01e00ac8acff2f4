import argparse

import torch


def build_parser():
    ap = argparse.ArgumentParser("dimenet-hvd")
    ap.add_argument("--np", type=int, default=4, help="number of horovod workers")
    ap.add_argument("--hosts", default=None, help="e.g. node1:4,node2:4")
    ap.add_argument("--dataset", default="data/qm7x_subset.npz")
    ap.add_argument("--val-frac", type=float, default=0.05)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--epochs", type=int, default=200)
    ap.add_argument("--cutoff", type=float, default=5.0)
    ap.add_argument("--emb", type=int, default=128)
    ap.add_argument("--blocks", type=int, default=4)
    ap.add_argument("--rho", type=float, default=0.999, help="force weight (1-rho for energy)")
    ap.add_argument("--ema-decay", type=float, default=0.999)
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", default="out/dimenet")
    return ap
