"""Train a small DDPM on CIFAR-style 32x32 images with Horovod.

    horovodrun -np 4 python train.py --data_dir ./data/cifar_npz --batch_size 64
"""
import os
import time

import torch
import horovod.torch as hvd

from tinyddpm.config import get_args
from tinyddpm import dist
from tinyddpm.data import build_loader
from tinyddpm.models import UNetTiny
from tinyddpm.trainer import DDPMTrainer


def main():
    args = get_args()
    dist.setup(args)

    train_loader, train_sampler = build_loader(args, split="train")

    model = UNetTiny(ch=args.ch, ch_mult=tuple(args.ch_mult)).to(args.device)
    # lr follows the global batch: base lr is given for 1 worker
    lr = args.lr * hvd.size() * args.accum_steps
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=args.wd)

    trainer = DDPMTrainer(args, model, optimizer)
    start_step = trainer.maybe_resume()

    optimizer = hvd.DistributedOptimizer(
        optimizer,
        named_parameters=model.named_parameters(),
        backward_passes_per_step=args.accum_steps,
        op=hvd.Average,
    )
    trainer.optimizer = optimizer
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    trainer.ema.reset(model)

    step = start_step
    epoch = step // max(len(train_loader) // args.accum_steps, 1)
    t0 = time.time()
    while step < args.total_steps:
        train_sampler.set_epoch(epoch)
        step = trainer.train_epoch(train_loader, step)
        epoch += 1
        if dist.is_main():
            print(f"epoch {epoch} done, step {step}, {time.time() - t0:.1f}s", flush=True)

    trainer.save(step, final=True)


if __name__ == "__main__":
    main()
