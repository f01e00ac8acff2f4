import argparse


def get_parser():
    p = argparse.ArgumentParser(description="GCN node classification (horovod)")
    p.add_argument("--data-dir", default="data/cora", help="folder with cora.npz (synthetic graph if absent)")
    p.add_argument("--num-nodes", type=int, default=2708)
    p.add_argument("--num-feats", type=int, default=1433)
    p.add_argument("--num-classes", type=int, default=7)
    p.add_argument("--hidden", type=int, default=64)
    p.add_argument("--dropout", type=float, default=0.5)
    p.add_argument("--batch-nodes", type=int, default=16, help="labelled nodes per step per worker")
    p.add_argument("--lr", type=float, default=0.01, help="lr for ONE worker")
    p.add_argument("--weight-decay", type=float, default=5e-4)
    p.add_argument("--epochs", type=int, default=200)
    p.add_argument("--save-every", type=int, default=50)
    p.add_argument("--ckpt-dir", default="./checkpoints")
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--no-cuda", action="store_true")
    p.add_argument("--fp16-allreduce", action="store_true")
    return p


def parse_args(argv=None):
    args = get_parser().parse_args(argv)
    return args
