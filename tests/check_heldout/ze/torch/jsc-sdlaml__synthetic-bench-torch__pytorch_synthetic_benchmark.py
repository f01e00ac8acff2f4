"""Synthetic throughput benchmark used for the JUWELS Booster scaling study.

    srun --ntasks-per-node=4 python pytorch_synthetic_benchmark.py --model resnet50 --batch-size 64

Images/sec per GPU and in total are appended to results/<jobid>.csv by rank 0.
"""
import timeit

import numpy as np
import torch
import torch.nn.functional as F

import horovod.torch as hvd

from bench.cli import parse_args
from bench.device import setup_device
from bench.models import build_model
from bench.report import log, save_model, write_csv

args = parse_args()

hvd.init()
device = setup_device(args)

model = build_model(args.model).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=args.base_lr * hvd.size(), momentum=0.9)

compression = hvd.Compression.fp16 if args.fp16_allreduce else hvd.Compression.none
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                     compression=compression)

hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)

# synthetic data: every rank draws its own random batch, nothing is read from disk
data = torch.randn(args.batch_size, 3, args.image_size, args.image_size, device=device)
target = torch.randint(0, 1000, (args.batch_size,), device=device)


def benchmark_step():
    optimizer.zero_grad()
    loss = F.cross_entropy(model(data), target)
    loss.backward()
    optimizer.step()


log(f"Model: {args.model}, batch size: {args.batch_size}, ranks: {hvd.size()}")
log("Running warmup...")
timeit.timeit(benchmark_step, number=args.num_warmup_batches)

log("Running benchmark...")
img_secs = []
for it in range(args.num_iters):
    t = timeit.timeit(benchmark_step, number=args.num_batches_per_iter)
    img_sec = args.batch_size * args.num_batches_per_iter / t
    total = hvd.allreduce(img_sec, name="iter_img_sec", op=hvd.Sum)
    log(f"Iter #{it}: {img_sec:.1f} img/sec per GPU, {total:.1f} img/sec total")
    img_secs.append(img_sec)

img_sec_mean = np.mean(img_secs)
img_sec_conf = 1.96 * np.std(img_secs)
log(f"Img/sec per GPU: {img_sec_mean:.1f} +-{img_sec_conf:.1f}")
log(f"Total img/sec on {hvd.size()} GPU(s): {hvd.size() * img_sec_mean:.1f} +-{hvd.size() * img_sec_conf:.1f}")
write_csv(args, hvd.size(), img_sec_mean, img_sec_conf)

if args.save_model:
    save_model(model, args.save_model)
