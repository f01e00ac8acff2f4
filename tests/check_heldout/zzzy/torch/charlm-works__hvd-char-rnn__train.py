#!/usr/bin/env python
# Character-level RNN language model, data parallel with horovod.
#   horovodrun -np 4 python train.py --data data/tinyshakespeare.txt --epochs 20
# (single process works too: python train.py ...)
import time
import math

import torch
import horovod.torch as hvd

from charrnn.options import get_parser
from charrnn.data import CharCorpus, stream_batches
from charrnn.model import CharRNN
from charrnn.trainer import Trainer
from charrnn import distutil


def main():
    args = get_parser().parse_args()
    distutil.setup(args.seed)
    torch.manual_seed(args.seed)
    args.cuda = args.cuda and torch.cuda.is_available()

    corpus = CharCorpus(args.data, valid_frac=args.valid_frac)
    # the char stream is cut in hvd.size() contiguous pieces, each piece in batch_size streams
    train_data = stream_batches(corpus.train, args.batch_size, hvd.rank(), hvd.size())
    val_data = stream_batches(corpus.valid, args.eval_batch_size, hvd.rank(), hvd.size())
    if distutil.is_master():
        print('vocab %d | train %d chars | valid %d chars | %d workers' % (
            len(corpus.vocab), corpus.train.numel(), corpus.valid.numel(), hvd.size()))

    model = CharRNN(len(corpus.vocab), args.emsize, args.nhid, args.nlayers,
                    dropout=args.dropout, cell=args.cell)
    if args.cuda:
        model.cuda()

    # bigger global batch -> bigger step
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr * hvd.size())
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    trainer = Trainer(model, optimizer, args)
    best_val = None
    for epoch in range(1, args.epochs + 1):
        t0 = time.time()
        train_loss = trainer.train_epoch(train_data, epoch)
        val_loss = trainer.evaluate(val_data)
        if distutil.is_master():
            print('-' * 70)
            print('| end of epoch %3d | %5.1fs | train ppl %8.2f | valid loss %5.3f | valid ppl %8.2f' % (
                epoch, time.time() - t0, math.exp(train_loss), val_loss, math.exp(val_loss)))
            print('-' * 70)
            if best_val is None or val_loss < best_val:
                best_val = val_loss
                distutil.save_checkpoint(model, optimizer, epoch, args.save)

    if distutil.is_master():
        print(trainer.sample(corpus.vocab, args.sample_len, prime=args.prime, temperature=args.temperature))


if __name__ == '__main__':
    main()
