#!/usr/bin/env python
# Track the gradient noise scale B_simple while training, to pick a critical batch size.
import argparse
import json
import logging
import os

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader
import horovod.torch as hvd

from gns.env import init_distributed
from gns.data import random_images, rank_slice
from gns.models import small_cnn
from gns.noise import EMA, noise_scale_sample

log = logging.getLogger("gns")

parser = argparse.ArgumentParser(description="gradient noise scale probe")
parser.add_argument("--batch-size", type=int, default=64)
parser.add_argument("--lr", type=float, default=0.05, help="lr for one worker")
parser.add_argument("--steps", type=int, default=2000)
parser.add_argument("--probe-every", type=int, default=50)
parser.add_argument("--ckpt", default="checkpoints/gns_last.pt")
parser.add_argument("--log-file", default="gns.jsonl")
args = parser.parse_args()

device = init_distributed()
torch.manual_seed(0)

train_set = rank_slice(random_images(seed=0), hvd.rank(), hvd.size())
loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True, drop_last=True)

model = small_cnn().to(device)
opt = torch.optim.SGD(model.parameters(), lr=args.lr * hvd.size(), momentum=0.9, nesterov=True)
hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(opt, root_rank=0)
opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())

g2_ema, tr_ema = EMA(), EMA()
step = 0
while step < args.steps:
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        if step % args.probe_every == 0:
            sample = noise_scale_sample(model, F.cross_entropy, x, y)
            if sample is not None:
                g2, tr = g2_ema.update(sample[0]), tr_ema.update(sample[1])
                if hvd.rank() == 0:
                    rec = {"step": step, "g2": g2, "trace": tr, "b_simple": tr / max(g2, 1e-12)}
                    log.info("step %d B_simple %.1f", step, rec["b_simple"])
                    with open(args.log_file, "a") as f:
                        f.write(json.dumps(rec) + "\n")
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        if step % args.probe_every == 0:
            avg_loss = hvd.allreduce(loss.detach(), name="train_loss").item()
            log.info("step %d loss %.4f", step, avg_loss)
        step += 1
        if step >= args.steps:
            break

    os.makedirs(os.path.dirname(args.ckpt), exist_ok=True)
    torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": step}, args.ckpt)
