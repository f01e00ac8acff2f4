import argparse


def get_parser():
    p = argparse.ArgumentParser(description='char-rnn (pytorch + horovod)')
    p.add_argument('--data', type=str, default='data/input.txt', help='plain text file')
    p.add_argument('--valid-frac', type=float, default=0.05)
    p.add_argument('--cell', type=str, default='lstm', choices=['lstm', 'gru'])
    p.add_argument('--emsize', type=int, default=64)
    p.add_argument('--nhid', type=int, default=256)
    p.add_argument('--nlayers', type=int, default=2)
    p.add_argument('--dropout', type=float, default=0.2)
    p.add_argument('--lr', type=float, default=2e-3, help='per-worker learning rate')
    p.add_argument('--clip', type=float, default=5.0)
    p.add_argument('--epochs', type=int, default=30)
    p.add_argument('--batch-size', type=int, default=32, help='streams per worker')
    p.add_argument('--eval-batch-size', type=int, default=10)
    p.add_argument('--bptt', type=int, default=100)
    p.add_argument('--seed', type=int, default=1111)
    p.add_argument('--log-interval', type=int, default=50)
    p.add_argument('--no-cuda', dest='cuda', action='store_false')
    p.add_argument('--save', type=str, default='checkpoints/charrnn.pt')
    p.add_argument('--sample-len', type=int, default=500)
    p.add_argument('--prime', type=str, default='\n')
    p.add_argument('--temperature', type=float, default=0.8)
    return p
