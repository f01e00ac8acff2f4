#!/usr/bin/env python
"""Train a transformer NMT model with a token budget per batch, on N GPUs with Horovod.

    horovodrun -np 8 python train.py --data data/iwslt14.de-en --max-tokens 4096
"""
import argparse
import glob
import logging
import os
import time

import torch
import horovod.torch as hvd

from fslite import data as D
from fslite.bleu import bleu_from_stats, ngram_stats
from fslite.checkpoint import average_checkpoints, save_checkpoint
from fslite.model import TransformerNMT
from fslite.optim import InverseSqrtSchedule, label_smoothed_nll

logger = logging.getLogger("fslite.train")


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="data/iwslt14.de-en")
    p.add_argument("--src", default="de")
    p.add_argument("--tgt", default="en")
    p.add_argument("--max-tokens", type=int, default=4096)
    p.add_argument("--update-freq", type=int, default=2)
    p.add_argument("--lr", type=float, default=5e-4, help="peak lr for a 25k-token global batch")
    p.add_argument("--ref-tokens", type=int, default=25000)
    p.add_argument("--warmup-updates", type=int, default=4000)
    p.add_argument("--label-smoothing", type=float, default=0.1)
    p.add_argument("--max-epoch", type=int, default=30)
    p.add_argument("--max-len", type=int, default=128)
    p.add_argument("--save-dir", default="checkpoints")
    p.add_argument("--keep-last", type=int, default=5)
    p.add_argument("--seed", type=int, default=1)
    return p.parse_args()


def validate(model, examples, batches, device):
    model.eval()
    stats = torch.zeros(10, dtype=torch.float64)
    loss_sum = torch.zeros(2, dtype=torch.float64)
    with torch.no_grad():
        for idx in batches:
            src, tgt_in, tgt_out = (t.to(device) for t in D.collate(examples, idx))
            _, nll, ntok = label_smoothed_nll(model(src, tgt_in), tgt_out, 0.0)
            loss_sum += torch.tensor([nll.item(), ntok.item()], dtype=torch.float64)
            hyps = model.greedy(src, max_len=tgt_out.size(1) + 10).tolist()
            for h, r in zip(hyps, tgt_out.tolist()):
                h = h[:h.index(D.EOS)] if D.EOS in h else h
                r = [w for w in r if w not in (D.PAD, D.EOS)]
                stats += torch.tensor(ngram_stats(h, r), dtype=torch.float64)
    # corpus BLEU needs the summed counts of every shard, not a mean of per-rank scores
    stats = hvd.allreduce(stats, op=hvd.Sum, name="bleu_stats")
    loss_sum = hvd.allreduce(loss_sum, op=hvd.Sum, name="valid_nll")
    model.train()
    return bleu_from_stats(stats.tolist()), (loss_sum[0] / loss_sum[1]).item()


def main():
    args = get_args()
    hvd.init()
    logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.WARNING,
                        format="%(asctime)s | %(levelname)s | %(message)s")
    torch.manual_seed(args.seed)
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    train_pairs = D.read_parallel(os.path.join(args.data, "train"), args.src, args.tgt)
    valid_pairs = D.read_parallel(os.path.join(args.data, "valid"), args.src, args.tgt)
    vocab_cache = os.path.join(args.data, "dict.joint.txt")
    if hvd.rank() == 0:
        D.build_vocab(train_pairs, vocab_cache)
    hvd.barrier()
    itos = D.build_vocab(train_pairs, vocab_cache)
    train = D.encode(train_pairs, itos, args.max_len)
    valid = D.encode(valid_pairs, itos, args.max_len)
    valid_batches = D.token_batches(valid, args.max_tokens, seed=0)
    valid_batches = valid_batches[hvd.rank()::hvd.size()]

    model = TransformerNMT(len(itos)).to(device)
    # the reference lr was tuned for ref_tokens per update; scale linearly with the global budget
    global_tokens = args.max_tokens * args.update_freq * hvd.size()
    peak_lr = args.lr * global_tokens / args.ref_tokens
    optimizer = torch.optim.Adam(model.parameters(), lr=peak_lr, betas=(0.9, 0.98), eps=1e-8)
    schedule = InverseSqrtSchedule(optimizer, peak_lr, args.warmup_updates)

    start_epoch = 1
    last = os.path.join(args.save_dir, "checkpoint_last.pt")
    if os.path.exists(last):
        state = torch.load(last, map_location="cpu")
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        schedule.load_state_dict(state["schedule"])
        start_epoch = state["epoch"] + 1

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         backward_passes_per_step=args.update_freq)

    for epoch in range(start_epoch, args.max_epoch + 1):
        batches = D.token_batches(train, args.max_tokens, seed=args.seed + epoch)
        my_batches = D.shard_batches(batches, hvd.rank(), hvd.size())
        my_batches = my_batches[: len(my_batches) - len(my_batches) % args.update_freq]
        t0 = time.time()
        for i, idx in enumerate(my_batches):
            src, tgt_in, tgt_out = (t.to(device) for t in D.collate(train, idx))
            loss, nll, ntok = label_smoothed_nll(model(src, tgt_in), tgt_out, args.label_smoothing)
            (loss / ntok.clamp(min=1) / args.update_freq).backward()
            if (i + 1) % args.update_freq == 0:
                optimizer.synchronize()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                with optimizer.skip_synchronize():
                    optimizer.step()
                optimizer.zero_grad()
                lr = schedule.step_update()
                if schedule.num_updates % 100 == 0:
                    logger.info("epoch %d | update %d | lr %.2e | loss %.3f", epoch,
                                schedule.num_updates, lr, nll.item() / max(ntok.item(), 1))
        bleu, valid_nll = validate(model, valid, valid_batches, device)
        logger.info("epoch %d done in %.0fs | valid nll %.3f | BLEU %.2f",
                    epoch, time.time() - t0, valid_nll, bleu)
        if hvd.rank() == 0:
            save_checkpoint(os.path.join(args.save_dir, f"checkpoint{epoch}.pt"),
                            model, optimizer, schedule, epoch)
            save_checkpoint(last, model, optimizer, schedule, epoch)

    if hvd.rank() == 0:
        recent = sorted(glob.glob(os.path.join(args.save_dir, "checkpoint[0-9]*.pt")),
                        key=lambda p: int(p.rsplit("checkpoint", 1)[1][:-3]))[-args.keep_last:]
        torch.save({"model": average_checkpoints(recent)},
                   os.path.join(args.save_dir, "checkpoint_avg.pt"))
        logger.info("averaged %d checkpoints", len(recent))


if __name__ == "__main__":
    main()
