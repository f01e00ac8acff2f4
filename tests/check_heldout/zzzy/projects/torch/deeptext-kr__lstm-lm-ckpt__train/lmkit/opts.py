import argparse


def str2bool(v):
    return str(v).lower() in ('1', 'true', 'yes', 'y')


def get_opts(argv=None):
    ap = argparse.ArgumentParser('lstm-lm')
    ap.add_argument('--data', default='corpora/kowiki')
    ap.add_argument('--vocab', default='vocab.txt', help='one token per line, relative to --data')
    ap.add_argument('--emb', type=int, default=512)
    ap.add_argument('--hid', type=int, default=1024)
    ap.add_argument('--layers', type=int, default=2)
    ap.add_argument('--dropout', type=float, default=0.25)
    ap.add_argument('--tie', type=str2bool, default=False)
    ap.add_argument('--batch-size', type=int, default=32, help='streams per worker')
    ap.add_argument('--bptt', type=int, default=64)
    ap.add_argument('--accum', type=int, default=1)
    ap.add_argument('--lr', type=float, default=0.5)
    ap.add_argument('--clip', type=float, default=0.5)
    ap.add_argument('--epochs', type=int, default=15)
    ap.add_argument('--ckpt-dir', default='ckpt')
    ap.add_argument('--resume', type=str2bool, default=True, help='pick up ckpt-dir/last.pt if present')
    ap.add_argument('--sample-len', type=int, default=60)
    ap.add_argument('--temperature', type=float, default=1.0)
    return ap.parse_args(argv)
