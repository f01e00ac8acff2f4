import argparse


def parse_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument('--text', default='data/input.txt')
    p.add_argument('--batch-size', type=int, default=32, help='fixed: stateful layers need it')
    p.add_argument('--seq-len', type=int, default=100)
    p.add_argument('--units', type=int, default=512)
    p.add_argument('--cell', default='lstm', choices=['lstm', 'gru'])
    p.add_argument('--lr', type=float, default=1e-3)
    p.add_argument('--clipnorm', type=float, default=5.0)
    p.add_argument('--epochs', type=int, default=25)
    p.add_argument('--ckpt-dir', default='checkpoints')
    p.add_argument('--sample-len', type=int, default=400)
    return p.parse_args(argv)
