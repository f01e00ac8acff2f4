import argparse


def parse(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument('--pairs', default='data/spa-eng.txt')
    parser.add_argument('--num-examples', type=int, default=30000)
    parser.add_argument('--batch-size', type=int, default=64)
    parser.add_argument('--emb', type=int, default=256)
    parser.add_argument('--units', type=int, default=1024)
    parser.add_argument('--lr', type=float, default=1e-3)
    parser.add_argument('--clip', type=float, default=5.0)
    parser.add_argument('--epochs', type=int, default=10)
    parser.add_argument('--tf-start', type=float, default=1.0, help='teacher forcing ratio at epoch 0')
    parser.add_argument('--tf-end', type=float, default=0.5)
    parser.add_argument('--save-every', type=int, default=2)
    parser.add_argument('--ckpt-dir', default='./training_checkpoints')
    parser.add_argument('--horovod', action='store_true', help='run with horovod (use with horovodrun)')
    return parser.parse_args(argv)
