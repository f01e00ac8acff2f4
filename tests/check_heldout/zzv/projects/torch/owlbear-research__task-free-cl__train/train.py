"""Task-free online continual learning (experience replay, single pass over the stream).

horovodrun -np 8 -H node1:4,node2:4 python train.py --data /scratch/cifar100.npz
"""
import argparse
import json
import os
import time

import torch
import horovod.torch as hvd

from tfcl.stream import load_stream, shard_stream, minibatches
from tfcl.reservoir import Reservoir
from tfcl.trainer import OnlineLearner
from tfcl.metrics import accuracy_per_segment, forgetting


def build_parser():
    p = argparse.ArgumentParser()
    p.add_argument("--data", required=True)
    p.add_argument("--segments", type=int, default=20)
    p.add_argument("--batch-size", type=int, default=10)
    p.add_argument("--replay-batch", type=int, default=10)
    p.add_argument("--mem", type=int, default=1000, help="buffer size per worker")
    p.add_argument("--lr", type=float, default=0.1)
    p.add_argument("--head-lr", type=float, default=1e-3)
    p.add_argument("--eval-every", type=int, default=500, help="steps")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="out/tfcl")
    return p


def run(args):
    hvd.init()
    torch.manual_seed(args.seed)
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda")
    else:
        device = torch.device("cpu")
    root = hvd.rank() == 0

    x, y, order, segs, test = load_stream(args.data, args.segments, args.seed)
    idx = shard_stream(order, hvd.rank(), hvd.size(), args.batch_size)
    learner = OnlineLearner(in_ch=x.shape[1], n_classes=int(y.max()) + 1,
                            lr=args.lr * hvd.size(), head_lr=args.head_lr * hvd.size(),
                            device=device)
    learner.broadcast()
    memory = Reservoir(args.mem, seed=args.seed + hvd.rank())

    history, t0 = [], time.time()
    seg_of = {int(c): k for k, s in enumerate(segs) for c in s}
    for step, (xb, yb) in enumerate(minibatches(x, y, idx, args.batch_size)):
        loss = learner.observe(xb, yb, memory.sample(args.replay_batch))
        memory.add(xb, yb)
        if (step + 1) % args.eval_every == 0:
            upto = max(seg_of[int(c)] for c in yb)
            accs = accuracy_per_segment(learner, test, segs, upto)
            history.append(accs)
            if root:
                print(f"step {step + 1} loss {loss:.3f} seen_segments {upto + 1} "
                      f"acc {sum(accs) / len(accs):.4f} ({time.time() - t0:.0f}s)", flush=True)
                os.makedirs(args.out, exist_ok=True)
                torch.save(learner.state_dict(), os.path.join(args.out, "learner.pt"))

    final = accuracy_per_segment(learner, test, segs, len(segs) - 1)
    history.append(final)
    if root:
        print(json.dumps({"final_acc": sum(final) / len(final), "forgetting": forgetting(history)}))


if __name__ == "__main__":
    run(build_parser().parse_args())
