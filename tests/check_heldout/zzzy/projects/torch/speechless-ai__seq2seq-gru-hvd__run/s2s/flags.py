import argparse


def parse(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument('--pairs', default='data/eng-fra.tsv')
    p.add_argument('--max-len', type=int, default=20)
    p.add_argument('--min-freq', type=int, default=2)
    p.add_argument('--hidden', type=int, default=256)
    p.add_argument('--layers', type=int, default=1)
    p.add_argument('--dropout', type=float, default=0.1)
    p.add_argument('--batch-size', type=int, default=64)
    p.add_argument('--lr', type=float, default=5e-4)
    p.add_argument('--clip', type=float, default=1.0)
    p.add_argument('--epochs', type=int, default=20)
    p.add_argument('--tf-ratio', type=float, default=1.0, help='initial teacher forcing ratio')
    p.add_argument('--tf-decay', type=float, default=0.05)
    p.add_argument('--tf-min', type=float, default=0.5)
    p.add_argument('--seed', type=int, default=17)
    p.add_argument('--out-dir', default='runs/s2s')
    p.add_argument('--num-proc', type=int, default=1)
    p.add_argument('--hosts', default=None)
    return p.parse_args(argv)
