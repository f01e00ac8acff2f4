"""Elastic Horovod training for TrajFormer.

    horovodrun -np 8 --min-np 4 --max-np 16 --host-discovery-script ./discover_hosts.sh \
        python train_elastic.py --data datasets/eth_ucy --epochs 150
"""
import argparse
import math
import os

import torch
import horovod.torch as hvd
from torch.utils.data import DataLoader

from trajformer.data import TrajectoryWindows
from trajformer.io import load_checkpoint, save_checkpoint
from trajformer.metrics import DisplacementError
from trajformer.model import TrajFormer, best_of_k_loss


def get_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="datasets/eth_ucy")
    ap.add_argument("--ckpt", default="checkpoints/trajformer.pt")
    ap.add_argument("--epochs", type=int, default=150)
    ap.add_argument("--batch-size", type=int, default=128, help="per worker")
    ap.add_argument("--base-lr", type=float, default=5e-4, help="lr for a single worker")
    ap.add_argument("--commit-every", type=int, default=200, help="batches between commits")
    ap.add_argument("--seed", type=int, default=7)
    return ap.parse_args()


args = get_args()
hvd.init()
torch.manual_seed(args.seed)
use_cuda = torch.cuda.is_available()
if use_cuda:
    torch.cuda.set_device(hvd.local_rank())
device = torch.device("cuda" if use_cuda else "cpu")

train_set = TrajectoryWindows(args.data, "train", augment=True)
val_set = TrajectoryWindows(args.data, "val")
# ElasticSampler re-partitions the remaining indices whenever workers join or leave.
train_sampler = hvd.elastic.ElasticSampler(train_set, shuffle=True, seed=args.seed)
val_sampler = hvd.elastic.ElasticSampler(val_set, shuffle=False)
train_loader = DataLoader(train_set, batch_size=args.batch_size, sampler=train_sampler,
                          num_workers=2, pin_memory=use_cuda)
val_loader = DataLoader(val_set, batch_size=512, sampler=val_sampler)

model = TrajFormer().to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=args.base_lr * hvd.size())
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

start_epoch = 0
if hvd.rank() == 0 and os.path.exists(args.ckpt):
    start_epoch = load_checkpoint(args.ckpt, model, optimizer)


def lr_for(epoch):
    """Cosine decay of the size-scaled lr; recomputed with the current world size."""
    peak = args.base_lr * hvd.size()
    return peak * 0.5 * (1 + math.cos(math.pi * epoch / args.epochs))


def set_lr(opt, epoch):
    for group in opt.param_groups:
        group["lr"] = lr_for(epoch)


@torch.no_grad()
def validate(epoch):
    model.eval()
    val_sampler.set_epoch(0)  # re-partition the validation set for the current workers
    meter = DisplacementError("val")
    for obs, fut in val_loader:
        futures, _ = model(obs.to(device))
        meter.update(futures, fut.to(device))
    res = meter.compute()
    if hvd.rank() == 0:
        print(f"epoch {epoch}: minADE {res['minADE']:.3f} minFDE {res['minFDE']:.3f}", flush=True)
    return res


@hvd.elastic.run
def train(state):
    for state.epoch in range(state.epoch, args.epochs):
        set_lr(state.optimizer, state.epoch)
        state.model.train()
        for state.batch, (obs, fut) in enumerate(train_loader):
            futures, logits = state.model(obs.to(device))
            loss = best_of_k_loss(futures, logits, fut.to(device))
            state.optimizer.zero_grad()
            loss.backward()
            state.optimizer.step()
            state.train_sampler.record_batch(state.batch, args.batch_size)
            if state.batch % args.commit_every == 0:
                state.commit()

        metrics = validate(state.epoch)
        state.batch = 0
        state.train_sampler.set_epoch(state.epoch + 1)
        state.commit()
        save_checkpoint(args.ckpt, state.model, state.optimizer, state.epoch, metrics)


def on_state_reset():
    # world size changed: re-apply the lr for the new number of workers
    set_lr(state.optimizer, state.epoch)


state = hvd.elastic.TorchState(model=model, optimizer=optimizer, train_sampler=train_sampler,
                               epoch=start_epoch, batch=0)
state.register_reset_callbacks([on_state_reset])
train(state)
