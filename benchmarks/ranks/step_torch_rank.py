"""One side of `python -m benchmarks.step_bench --framework torch`: time N training steps of one model on every rank.

    mpirun -n 2 python benchmarks/ranks/step_torch_rank.py --side hvdkit --model cnn --json-dir /tmp/out
    mpirun -n 2 python benchmarks/ranks/step_torch_rank.py --side horovod --model mlp --json-dir /tmp/out
    MASTER_ADDR=127.0.0.1 MASTER_PORT=29512 mpirun -n 2 -x MASTER_ADDR -x MASTER_PORT \
        python benchmarks/ranks/step_torch_rank.py --side ddp --model cnn --json-dir /tmp/out
    mpirun -n 2 python benchmarks/ranks/step_torch_rank.py --side interleaved --model cnn --json-dir /tmp/out

The three sides train the same model (weights seeded per rank, then made equal from rank 0) on the
same fixed synthetic batches (seeded by rank) with the same optimizer and per-rank batch:
  hvdkit  -- hvdkit.torch: init, scale_lr, distributed_optimizer, broadcast_state;
  horovod -- horovod.torch by hand, as Horovod's examples/pytorch/pytorch_mnist.py does it;
  ddp     -- torch.nn.parallel.DistributedDataParallel over gloo, rank/size from mpirun's environment;
  interleaved -- the hvdkit and the hand-written optimizer on two copies of the model in one process,
             alternated in --blocks blocks of steps, so that machine load drifting between launches cancels.
A step is --bpps forward+backward passes and one optimizer step. Each rank times --steps steps after
--untimed ones and writes its record to --json-dir DIR/rank<r>.json: its wall and CPU time per
step, its loss and a weight checksum, so sides can be checked to compute the same thing. --timeline
(hvdkit side) records Horovod's timeline of the timed steps only.
"""
import argparse
import copy
import json
import os
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

from hvdkit.common.ranks import rank_and_size

N_BATCHES = 8  # distinct fixed batches per rank, cycled
# Interleaved side: the same averaged gradients applied by both optimizers. A sum of two ranks' values is
# the same in any order, so the copies should agree to the bit; this allows float32 rounding only.
SAME_WEIGHTS = 1e-6


class Net(nn.Module):
    """PyTorch's MNIST example network: 1x28x28 in, 10 classes, 1.2 M parameters in 8 tensors."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.conv2 = nn.Conv2d(32, 64, 3, 1)
        self.fc1 = nn.Linear(9216, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv2(F.relu(self.conv1(x)))), 2)
        return self.fc2(F.relu(self.fc1(torch.flatten(x, 1))))


def mlp(depth, width):
    """Many small tensors: depth Linear(width, width) layers, so per-tensor cost dominates the step."""
    layers = [nn.Linear(32, width), nn.ReLU()]
    for _ in range(depth - 2):
        layers += [nn.Linear(width, width), nn.ReLU()]
    return nn.Sequential(*layers, nn.Linear(width, 10))


def build(args, rank):
    torch.manual_seed(1 + rank)  # different on every rank: the initial broadcast must make them equal
    model = Net() if args.model == "cnn" else mlp(args.depth, args.width)
    shape = (1, 28, 28) if args.model == "cnn" else (32,)
    g = torch.Generator().manual_seed(1000 + rank)
    batches = [(torch.randn(args.batch, *shape, generator=g), torch.randint(0, 10, (args.batch,), generator=g))
               for _ in range(N_BATCHES)]
    return model, batches


def hvdkit_optimizer(hk, model, args):
    opt = torch.optim.SGD(model.parameters(), lr=hk.scale_lr(args.lr), momentum=0.5)
    opt = hk.distributed_optimizer(opt, model, backward_passes_per_step=args.bpps)
    hk.broadcast_state(model, opt)
    return opt


def horovod_optimizer(hvd, model, args):
    # Horovod: scale learning rate by the number of workers.
    opt = torch.optim.SGD(model.parameters(), lr=args.lr * hvd.size(), momentum=0.5)
    # Horovod: broadcast parameters & optimizer state.
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)
    # Horovod: wrap optimizer with DistributedOptimizer.
    return hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters(),
                                    backward_passes_per_step=args.bpps)


def hvdkit_side(args):
    import hvdkit.torch as hk

    # Before init: Horovod records a timeline only if asked before hvd.init().
    window = hk.timeline_window(args.timeline, steps=(0, 1), mark_cycles=True) if args.timeline else None
    ctx = hk.init(threads=args.threads)
    model, batches = build(args, ctx.rank)
    opt = hvdkit_optimizer(hk, model, args)
    ops = _hvd_ops(hk.hvd)
    ops["timeline"] = window
    return ctx.rank, model, batches, opt, ops


def horovod_side(args):
    import horovod.torch as hvd

    hvd.init()  # Horovod: initialize library.
    torch.set_num_threads(args.threads)  # Horovod: limit # of CPU threads to be used per worker.
    model, batches = build(args, hvd.rank())
    return hvd.rank(), model, batches, horovod_optimizer(hvd, model, args), _hvd_ops(hvd)


def interleaved_side(args):
    """Two copies of the model, one per optimizer: two DistributedOptimizers on one model would both
    allreduce its gradients. main() times the hvdkit pair as usual after the blocks, as a check."""
    import hvdkit.torch as hk

    ctx = hk.init(threads=args.threads)
    model, batches = build(args, ctx.rank)
    twin = copy.deepcopy(model)
    opt = hvdkit_optimizer(hk, model, args)
    ops = _hvd_ops(hk.hvd)
    ops["pairs"] = {"hvdkit": (model, opt), "horovod": (twin, horovod_optimizer(hk.hvd, twin, args))}
    return ctx.rank, model, batches, opt, ops


def _hvd_ops(hvd):
    def reduce(value, op):
        return hvd.allreduce(torch.tensor([value], dtype=torch.float64), op=op, name=f"bench.{op}").item()

    return {"max": lambda v: reduce(v, hvd.Max), "mean": lambda v: reduce(v, hvd.Average),
            "barrier": hvd.barrier, "size": hvd.size(), "finish": hvd.shutdown, "timeline": None,
            "info": {"mpi_enabled": hvd.mpi_enabled(), "gloo_enabled": hvd.gloo_enabled()}}


def ddp_side(args):
    import torch.distributed as dist

    rank, size = rank_and_size()  # DDP: mpirun's rank and size
    dist.init_process_group("gloo", init_method="env://", rank=rank, world_size=size)
    torch.set_num_threads(args.threads)
    model, batches = build(args, rank)
    model = nn.parallel.DistributedDataParallel(model)  # DDP: broadcasts rank 0's weights here
    opt = torch.optim.SGD(model.parameters(), lr=args.lr * size, momentum=0.5)

    def reduce(value, op):
        t = torch.tensor([value], dtype=torch.float64)
        dist.all_reduce(t, op=op)
        return t.item()

    def finish():
        # No destroy_process_group: a peer that closes its Gloo pairs while the other still tears down its
        # process group can abort it ("terminate called without an active exception"), and a barrier
        # first did not prevent it (seen again 2026-11-23). main() leaves with os._exit after the record.
        dist.barrier()

    ops = {"max": lambda v: reduce(v, dist.ReduceOp.MAX), "mean": lambda v: reduce(v, dist.ReduceOp.SUM) / size,
           "barrier": dist.barrier, "size": size, "finish": finish, "timeline": None,
           "info": {"backend": dist.get_backend()}}
    return rank, model, batches, opt, ops


SIDES = {"hvdkit": hvdkit_side, "horovod": horovod_side, "ddp": ddp_side, "interleaved": interleaved_side}


def train(model, batches, opt, n_steps, bpps, start, ddp):
    """n_steps optimizer steps of bpps passes each, from batch number `start`; returns the last loss."""
    i = start
    for _ in range(n_steps):
        opt.zero_grad()
        for p in range(bpps):
            x, y = batches[i % len(batches)]
            i += 1
            # DDP: only the last pass of a step allreduces (Horovod's backward_passes_per_step does the same).
            sync = model.no_sync() if ddp and p < bpps - 1 else _null()
            with sync:
                loss = F.cross_entropy(model(x), y)
                (loss / bpps).backward()
        opt.step()
    return loss.item()


def interleaved(pairs, batches, args, ops):
    """Each (model, optimizer) pair in --blocks alternating blocks (A B, B A, ...) after its own untimed steps:
    seconds per step of each on the slowest rank, and every block's time on this rank."""
    for model, opt in pairs.values():
        train(model, batches, opt, args.untimed, args.bpps, 0, False)
    ops["barrier"]()
    per_block = max(1, args.steps // args.blocks)
    blocks = {name: [] for name in pairs}
    i = args.untimed * args.bpps
    for b in range(args.blocks):
        for name in pairs if b % 2 == 0 else list(pairs)[::-1]:
            model, opt = pairs[name]
            t0 = time.perf_counter()
            train(model, batches, opt, per_block, args.bpps, i, False)
            blocks[name].append((time.perf_counter() - t0) / per_block)
        i += per_block * args.bpps
    step_s = {name: ops["max"](sum(t) / len(t)) for name, t in blocks.items()}
    # Same batches, same averaged gradients: the two copies must still hold the same weights.
    (a, _), (b, _) = pairs.values()
    differ = ops["max"](max((p - q).abs().max().item() for p, q in zip(a.parameters(), b.parameters())))
    if differ > SAME_WEIGHTS:
        # Every rank holds the allreduced maximum, so all of them stop here alike.
        raise SystemExit(f"step_torch_rank: hvdkit's and the hand-written optimizer ended {differ:.2e} apart "
                         f"(allowed {SAME_WEIGHTS:.0e}): they no longer compute the same step")
    return {"steps_per_block": per_block, "blocks": args.blocks, "step_s": step_s, "block_step_s_rank0": blocks,
            "max_weight_difference": differ}


class _null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--side", choices=SIDES, required=True)
    p.add_argument("--model", choices=("cnn", "mlp"), required=True)
    p.add_argument("--batch", type=int, default=32, help="samples per rank per pass")
    p.add_argument("--depth", type=int, default=48, help="MLP: Linear layers")
    p.add_argument("--width", type=int, default=32, help="MLP: layer width")
    p.add_argument("--steps", type=int, default=50, help="timed optimizer steps")
    p.add_argument("--untimed", "--warmup", type=int, default=10, help="untimed optimizer steps first")
    p.add_argument("--bpps", type=int, default=1, help="backward passes per optimizer step")
    p.add_argument("--threads", type=int, default=1, help="intra-op threads per rank")
    p.add_argument("--lr", type=float, default=0.01, help="per-rank learning rate (scaled by ranks)")
    p.add_argument("--timeline", help="hvdkit side: record Horovod's timeline of the timed steps to this file")
    p.add_argument("--blocks", type=int, default=8,
                   help="interleaved side: alternating blocks of --steps/--blocks steps")
    p.add_argument("--json-dir", required=True, help="write this rank's record to DIR/rank<r>.json")
    args = p.parse_args(argv)

    rank, model, batches, opt, ops = SIDES[args.side](args)
    ddp = args.side == "ddp"
    pairs = interleaved(ops["pairs"], batches, args, ops) if "pairs" in ops else None
    t0 = time.perf_counter()
    train(model, batches, opt, args.untimed, args.bpps, 0, ddp)
    untimed_s = time.perf_counter() - t0
    window = ops["timeline"]
    if window:
        window.start()
    ops["barrier"]()
    t0, cpu0 = time.perf_counter(), time.process_time()
    loss = train(model, batches, opt, args.steps, args.bpps, args.untimed * args.bpps, ddp)
    elapsed, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    if window:
        window.stop()
    checksum = float(sum(q.detach().double().sum() for q in model.parameters()))
    ops["finish"]()
    # One file per rank (mpirun's shared stdout can interleave long lines); the benchmark takes the slowest.
    with open(os.path.join(args.json_dir, f"rank{rank}.json"), "w") as f:
        json.dump({
            "rank": rank, "size": ops["size"], "side": args.side, "model": args.model, "steps": args.steps,
            "bpps": args.bpps, "batch_per_rank": args.batch, "threads": torch.get_num_threads(),
            "step_s": elapsed / args.steps, "cpu_s_per_step": cpu / args.steps, "untimed_s": untimed_s,
            "loss": loss, "weight_checksum": checksum, "tensors": sum(1 for _ in model.parameters()),
            "parameters": sum(q.numel() for q in model.parameters()), "info": ops["info"],
            "horovod_env": {k: v for k, v in os.environ.items() if k.startswith("HOROVOD_")},
            **({"interleaved": pairs} if pairs else {})}, f)
    if ddp:
        sys.stderr.flush()
        os._exit(0)  # skip the Gloo process group's C++ teardown (see ddp_side's finish)
    return 0


if __name__ == "__main__":
    sys.exit(main())
