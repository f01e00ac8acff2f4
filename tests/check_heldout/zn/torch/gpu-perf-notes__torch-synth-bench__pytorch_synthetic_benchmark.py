"""Synthetic-data throughput benchmark (images/sec) for torchvision models under Horovod.

Example (2 nodes x 4 GPUs):
    horovodrun -np 8 -H node1:4,node2:4 python pytorch_synthetic_benchmark.py \
        --model resnet50 --batch-size 64 --num-iters 20 --amp
"""
import argparse
import json
import os
import socket
import timeit

import numpy as np
import torch
import torch.nn.functional as F
import torch.optim as optim
import torch.utils.data.distributed
from torchvision import models

import horovod.torch as hvd

parser = argparse.ArgumentParser(description="PyTorch Synthetic Benchmark",
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
parser.add_argument("--model", type=str, default="resnet50", help="torchvision model to benchmark")
parser.add_argument("--batch-size", type=int, default=32, help="input batch size (per GPU)")
parser.add_argument("--image-size", type=int, default=224)
parser.add_argument("--num-classes", type=int, default=1000)
parser.add_argument("--base-lr", type=float, default=0.0125, help="single-GPU learning rate")
parser.add_argument("--num-warmup-iters", type=int, default=10, help="warm-up iterations, not timed")
parser.add_argument("--num-batches-per-iter", type=int, default=10, help="batches per timed iteration")
parser.add_argument("--num-iters", type=int, default=10, help="number of timed iterations")
parser.add_argument("--fp16-allreduce", action="store_true", default=False)
parser.add_argument("--amp", action="store_true", default=False, help="torch.cuda.amp autocast")
parser.add_argument("--no-cuda", action="store_true", default=False)
parser.add_argument("--save-model", type=str, default="", help="write final weights here (rank 0)")
parser.add_argument("--results-json", type=str, default="bench_results.json")

args = parser.parse_args()
args.cuda = not args.no_cuda and torch.cuda.is_available()

hvd.init()

if args.cuda:
    # one process per GPU
    torch.cuda.set_device(hvd.rank())
    torch.backends.cudnn.benchmark = True

device = torch.device("cuda" if args.cuda else "cpu")


def log(s, nl=True):
    if hvd.rank() != 0:
        return
    print(s, end="\n" if nl else "", flush=True)


model = getattr(models, args.model)(num_classes=args.num_classes).to(device)

# scale the single-GPU rate by the number of workers
lr_scaler = hvd.size()
optimizer = optim.SGD(model.parameters(), lr=args.base_lr * lr_scaler, momentum=0.9)

compression = hvd.Compression.fp16 if args.fp16_allreduce else hvd.Compression.none
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                     compression=compression)

hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)

scaler = torch.cuda.amp.GradScaler(enabled=args.amp and args.cuda)

# synthetic data: a fixed random batch per worker, nothing to shard
data = torch.randn(args.batch_size, 3, args.image_size, args.image_size, device=device)
target = torch.randint(0, args.num_classes, (args.batch_size,), device=device)


def benchmark_step():
    optimizer.zero_grad()
    with torch.autocast(device_type=device.type, enabled=args.amp and args.cuda):
        output = model(data)
        loss = F.cross_entropy(output, target)
    if scaler.is_enabled():
        scaler.scale(loss).backward()
        optimizer.synchronize()
        scaler.unscale_(optimizer)
        with optimizer.skip_synchronize():
            scaler.step(optimizer)
        scaler.update()
    else:
        loss.backward()
        optimizer.step()


log(f"Model: {args.model}")
log(f"Batch size: {args.batch_size}")
log(f"Number of {'GPU' if args.cuda else 'CPU'}s: {hvd.size()} ({socket.gethostname()} is rank 0)")

log("Running warmup...")
timeit.timeit(benchmark_step, number=args.num_warmup_batches)

log("Running benchmark...")
img_secs = []
for x in range(args.num_iters):
    t = timeit.timeit(benchmark_step, number=args.num_batches_per_iter)
    img_sec = args.batch_size * args.num_batches_per_iter / t
    log(f"Iter #{x}: {img_sec:.1f} img/sec per {'GPU' if args.cuda else 'CPU'}")
    img_secs.append(img_sec)

# per-rank mean, then averaged over ranks so that a slow straggler shows up
img_sec_mean = np.mean(img_secs)
img_sec_conf = 1.96 * np.std(img_secs)
avg_rank = hvd.allreduce(torch.tensor(img_sec_mean), name="img_sec_mean").item()
log(f"Img/sec per device (mean over ranks): {avg_rank:.1f} +-{img_sec_conf:.1f}")
log(f"Total img/sec on {hvd.size()} device(s): {hvd.size() * avg_rank:.1f}")

if hvd.rank() == 0:
    with open(args.results_json, "w") as f:
        json.dump({"model": args.model, "batch_size": args.batch_size, "world_size": hvd.size(),
                   "img_sec_per_device": avg_rank, "img_sec_total": hvd.size() * avg_rank,
                   "amp": args.amp}, f, indent=2)
    if args.save_model:
        os.makedirs(os.path.dirname(args.save_model) or ".", exist_ok=True)
        torch.save(model.state_dict(), args.save_model)
