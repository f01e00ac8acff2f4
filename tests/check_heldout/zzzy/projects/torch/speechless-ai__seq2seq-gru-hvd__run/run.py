"""Launch seq2seq GRU training on N workers with horovod.run (no horovodrun needed).

    python run.py --num-proc 4 --hosts node1:2,node2:2 --pairs data/eng-fra.tsv
"""
import math
import os
import random

import horovod
import torch

from s2s import flags
from s2s.data import load_pairs, build_vocabs, make_loaders
from s2s.model import EncoderRNN, AttnDecoderRNN, Seq2Seq
from s2s.loop import train_epoch, evaluate, save_ckpt, greedy_samples
from s2s import hvd_utils


def train_fn(cfg):
    import horovod.torch as hvd
    device = hvd_utils.setup(cfg.seed)

    pairs = load_pairs(cfg.pairs, max_len=cfg.max_len)
    src_vocab, tgt_vocab = build_vocabs(pairs, min_freq=cfg.min_freq)
    train_loader, valid_loader, train_sampler = make_loaders(
        pairs, src_vocab, tgt_vocab, cfg.batch_size, rank=hvd.rank(), world=hvd.size(), seed=cfg.seed)

    enc = EncoderRNN(len(src_vocab), cfg.hidden, n_layers=cfg.layers, dropout=cfg.dropout)
    dec = AttnDecoderRNN(len(tgt_vocab), cfg.hidden, n_layers=cfg.layers, dropout=cfg.dropout)
    model = Seq2Seq(enc, dec, tgt_vocab.bos, tgt_vocab.eos).to(device)

    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr * hvd.size())
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    best = float('inf')
    for epoch in range(cfg.epochs):
        train_sampler.set_epoch(epoch)
        # decay teacher forcing from cfg.tf_ratio to cfg.tf_min
        tf_ratio = max(cfg.tf_min, cfg.tf_ratio - epoch * cfg.tf_decay)
        tr_loss = train_epoch(model, optimizer, train_loader, device, cfg, tf_ratio)
        val_loss = evaluate(model, valid_loader, device)
        if hvd.rank() == 0:
            print('epoch %d  tf=%.2f  train loss %.3f  valid loss %.3f  valid ppl %.2f' % (
                epoch, tf_ratio, tr_loss, val_loss, math.exp(min(val_loss, 50))))
            if val_loss < best:
                best = val_loss
                save_ckpt(model, optimizer, epoch, os.path.join(cfg.out_dir, 'best.pt'))
    if hvd.rank() == 0:
        for src, hyp in greedy_samples(model, pairs[:5], src_vocab, tgt_vocab, device):
            print('>', src, '\n<', hyp)
    return best


def main():
    cfg = flags.parse()
    if cfg.num_proc > 1 or cfg.hosts:
        results = horovod.run(train_fn, args=(cfg,), num_proc=cfg.num_proc, hosts=cfg.hosts,
                              use_gloo=True, verbose=1)
        print('best valid loss per worker:', results)
    else:
        # debugging on one process: horovod still works with size 1
        train_fn(cfg)


if __name__ == '__main__':
    main()
