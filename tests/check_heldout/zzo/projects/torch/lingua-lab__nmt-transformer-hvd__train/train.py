#!/usr/bin/env python
"""Train a small Transformer NMT model with Horovod.

    horovodrun -np 8 python train.py --data data/wmt14.de-en --save-dir runs/base
"""
import argparse
import os

import horovod.torch as hvd
import torch

from nmt.data import BucketBatchSampler, ParallelCorpus, pad_collate, read_lines
from nmt.engine import Trainer, average_last, inverse_sqrt
from nmt.model import Seq2SeqTransformer
from nmt.vocab import Vocab


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="data/iwslt14.de-en")
    p.add_argument("--save-dir", default="checkpoints")
    p.add_argument("--batch-size", type=int, default=64, help="sentences per worker")
    p.add_argument("--lr", type=float, default=5e-4)
    p.add_argument("--warmup", type=int, default=4000)
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--clip", type=float, default=1.0)
    p.add_argument("--label-smoothing", type=float, default=0.1)
    p.add_argument("--amp", action="store_true")
    p.add_argument("--log-every", type=int, default=100)
    p.add_argument("--average-last", type=int, default=5)
    p.add_argument("--seed", type=int, default=1)
    return p.parse_args()


def main():
    args = get_args()
    hvd.init()
    torch.cuda.set_device(hvd.local_rank())
    torch.manual_seed(args.seed)

    src_train = read_lines(os.path.join(args.data, "train.src"))
    tgt_train = read_lines(os.path.join(args.data, "train.tgt"))
    src_vocab, tgt_vocab = Vocab.build(src_train), Vocab.build(tgt_train)

    train_set = ParallelCorpus(src_train, tgt_train, src_vocab, tgt_vocab)
    valid_set = ParallelCorpus(read_lines(os.path.join(args.data, "valid.src")),
                               read_lines(os.path.join(args.data, "valid.tgt")), src_vocab, tgt_vocab)
    train_sampler = BucketBatchSampler([len(s) for s, _ in train_set.examples], args.batch_size,
                                       num_replicas=hvd.size(), rank=hvd.rank(), seed=args.seed)
    train_loader = torch.utils.data.DataLoader(train_set, batch_sampler=train_sampler, collate_fn=pad_collate)
    valid_idx = list(range(hvd.rank(), len(valid_set), hvd.size()))
    valid_loader = torch.utils.data.DataLoader(torch.utils.data.Subset(valid_set, valid_idx),
                                               batch_size=args.batch_size, collate_fn=pad_collate)

    model = Seq2SeqTransformer(len(src_vocab), len(tgt_vocab)).cuda()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr * hvd.size(), betas=(0.9, 0.98))
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, inverse_sqrt(args.warmup))

    start_epoch = 0
    last = os.path.join(args.save_dir, "last.pt")
    if os.path.exists(last):
        state = torch.load(last, map_location="cpu")
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        start_epoch = state["epoch"] + 1

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    trainer = Trainer(model, optimizer, scheduler, tgt_vocab, args)
    for epoch in range(start_epoch, args.epochs):
        train_sampler.set_epoch(epoch)
        trainer.train_epoch(train_loader)
        bleu = trainer.evaluate(valid_loader)
        trainer.save(args.save_dir, epoch)
        if hvd.rank() == 0:
            print(f"epoch {epoch} valid BLEU {bleu:.2f}")
            torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                        "scheduler": scheduler.state_dict(), "epoch": epoch}, last)

    if hvd.rank() == 0:
        torch.save(average_last(args.save_dir, args.average_last), os.path.join(args.save_dir, "averaged.pt"))


if __name__ == "__main__":
    main()
