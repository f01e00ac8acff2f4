"""CTC transformer ASR (char vocab) trained data-parallel with Horovod.

Example:
    horovodrun -np 8 -H node1:4,node2:4 python train.py \
        --train data/librispeech_train_clean_100.jsonl --valid data/dev_clean.jsonl
"""
import argparse
import json
import math

import torch
import horovod.torch as hvd
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from asr.checkpoint import load_checkpoint
from asr.data import ManifestDataset, collate
from asr.model import CTCEncoder
from asr.text import VOCAB
from asr.trainer import CTCTrainer


def get_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", help="optional JSON file overriding the defaults below")
    ap.add_argument("--train", default="data/train.jsonl")
    ap.add_argument("--valid", default="data/dev.jsonl")
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--warmup-steps", type=int, default=4000)
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--d-model", type=int, default=256)
    ap.add_argument("--layers", type=int, default=6)
    ap.add_argument("--ckpt-dir", default="exp/ctc")
    ap.add_argument("--resume", default=None)
    args = ap.parse_args()
    if args.config:
        with open(args.config) as f:
            for k, v in json.load(f).items():
                setattr(args, k.replace("-", "_"), v)
    return args


def noam(warmup):
    def fn(step):
        step = max(step, 1)
        return min(step / warmup, math.sqrt(warmup / step))
    return fn


def main():
    args = get_args()
    hvd.init()
    torch.manual_seed(0)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    train_set = ManifestDataset(args.train, sort_by_duration=True)
    valid_set = ManifestDataset(args.valid)
    train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    valid_sampler = DistributedSampler(valid_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, sampler=train_sampler,
                              collate_fn=collate, num_workers=4, pin_memory=True)
    valid_loader = DataLoader(valid_set, batch_size=args.batch_size, sampler=valid_sampler,
                              collate_fn=collate, num_workers=2)

    model = CTCEncoder(vocab=len(VOCAB), d_model=args.d_model, layers=args.layers).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr * hvd.size(), betas=(0.9, 0.98))
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, noam(args.warmup_steps))

    start_epoch, step = 0, 0
    if args.resume:
        start_epoch, step = load_checkpoint(args.resume, model, optimizer, scheduler)
        start_epoch += 1

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         compression=hvd.Compression.fp16)

    trainer = CTCTrainer(model, optimizer, scheduler, device, args.ckpt_dir)
    trainer.step = step
    for epoch in range(start_epoch, args.epochs):
        train_sampler.shuffle = epoch > 0          # SortaGrad: sorted by length on epoch 0 only
        train_sampler.set_epoch(epoch)
        trainer.train_epoch(train_loader, epoch)
        cer = trainer.validate(valid_loader)
        if hvd.rank() == 0:
            print(f"epoch {epoch} dev CER {cer:.4f}", flush=True)
        trainer.checkpoint(epoch, cer)


if __name__ == "__main__":
    main()
