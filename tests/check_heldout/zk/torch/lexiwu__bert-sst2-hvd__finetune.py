#!/usr/bin/env python
"""Fine-tune a small transformer encoder on SST-2 with Horovod.

    horovodrun -np 4 python finetune.py --data-dir data/SST-2 --epochs 3 --fp16
"""
import argparse
import logging
import os

import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd

from sst2ft.data import build_vocab, load_split, SST2Dataset, PadCollator
from sst2ft.model import TextClassifier
from sst2ft.schedule import linear_warmup_decay
from sst2ft.engine import train_epoch, evaluate
from sst2ft.checkpoint import save_checkpoint, load_checkpoint

logger = logging.getLogger("finetune")


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--data-dir", default="data/SST-2")
    p.add_argument("--output-dir", default="runs/sst2")
    p.add_argument("--max-len", type=int, default=64)
    p.add_argument("--batch-size", type=int, default=32, help="micro batch per GPU")
    p.add_argument("--grad-accum", type=int, default=2)
    p.add_argument("--lr", type=float, default=5e-5, help="lr for one worker")
    p.add_argument("--weight-decay", type=float, default=0.01)
    p.add_argument("--warmup-ratio", type=float, default=0.06)
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--fp16", action="store_true")
    p.add_argument("--resume", action="store_true")
    p.add_argument("--seed", type=int, default=13)
    return p.parse_args()


def main():
    args = get_args()
    hvd.init()
    logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.WARNING,
                        format="%(asctime)s [%(name)s] %(message)s")
    torch.manual_seed(args.seed)

    use_cuda = torch.cuda.is_available()
    if use_cuda:
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if use_cuda else "cpu")

    vocab = build_vocab(os.path.join(args.data_dir, "train.tsv"))
    train_set = SST2Dataset(load_split(args.data_dir, "train"), vocab, args.max_len)
    dev_set = SST2Dataset(load_split(args.data_dir, "dev"), vocab, args.max_len)
    collate = PadCollator(pad_id=vocab["[PAD]"])

    train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank(),
                                       shuffle=True, seed=args.seed)
    dev_sampler = DistributedSampler(dev_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, sampler=train_sampler,
                              collate_fn=collate, drop_last=True)
    dev_loader = DataLoader(dev_set, batch_size=64, sampler=dev_sampler, collate_fn=collate)

    model = TextClassifier(len(vocab), num_labels=2).to(device)
    decay, no_decay = [], []
    for n, prm in model.named_parameters():
        (no_decay if n.endswith("bias") or "norm" in n else decay).append(prm)
    optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": args.weight_decay},
                                   {"params": no_decay, "weight_decay": 0.0}],
                                  lr=args.lr * hvd.size())
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         backward_passes_per_step=args.grad_accum)

    updates_per_epoch = len(train_loader) // args.grad_accum
    total_updates = updates_per_epoch * args.epochs
    scheduler = linear_warmup_decay(optimizer, int(args.warmup_ratio * total_updates), total_updates)
    scaler = torch.cuda.amp.GradScaler(enabled=args.fp16 and use_cuda)

    ckpt_path = os.path.join(args.output_dir, "last.pt")
    start_epoch = 0
    if args.resume and hvd.rank() == 0 and os.path.exists(ckpt_path):
        start_epoch = load_checkpoint(ckpt_path, model, optimizer, scheduler, scaler)
        logger.info("resumed from %s at epoch %d", ckpt_path, start_epoch)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    start_epoch = hvd.broadcast_object(start_epoch, root_rank=0, name="start_epoch")
    scheduler.load_state_dict(hvd.broadcast_object(scheduler.state_dict(), root_rank=0, name="sched"))

    for epoch in range(start_epoch, args.epochs):
        train_sampler.set_epoch(epoch)
        loss = train_epoch(model, train_loader, optimizer, scheduler, scaler, device, args.grad_accum)
        acc = evaluate(model, dev_loader, device)
        logger.info("epoch %d train_loss %.4f dev_acc %.4f lr %.2e", epoch, loss, acc,
                    scheduler.get_last_lr()[0])
        if hvd.rank() == 0:
            save_checkpoint(ckpt_path, model, optimizer, scheduler, scaler, epoch + 1)


if __name__ == "__main__":
    main()
