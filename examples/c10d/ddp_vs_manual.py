"""The course's data-parallel MLP three ways: manual gradient allreduce, DistributedDataParallel, sequential.

    mpirun -n 2 python examples/c10d/ddp_vs_manual.py

All runs start from rank 0's initial weights (each rank first builds its own, differently seeded,
model: the broadcast is what makes replicas equal, not hope) and take --steps SGD steps. The two
data-parallel runs read the same DistributedSampler shards of --batch-size samples per rank;
the sequential run reads the same permutation (the sampler with one replica) in batches of
batch-size * size, which are exactly the union of the ranks' batches. Printed on rank 0: the
global loss per step, from allreduced (sum, count) pairs, and the largest weight differences
over all ranks. A run on the local shard without any allreduce is the control: it drifts away.
"""
import copy

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

from c10d_common import distributed, make_parser
from hvdkit.common.argtypes import positive_int


def mlp(features, hidden, classes):
    return torch.nn.Sequential(torch.nn.Linear(features, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, classes))


def average_gradients(model, size):
    """The course's Listing 13.2.1: SUM over ranks, then divide by their number."""
    for p in model.parameters():
        dist.all_reduce(p.grad, op=dist.ReduceOp.SUM)  # c10d: gradient of the whole minibatch
        p.grad /= size


def train(model, batches, lr, after_backward=None):
    """SGD over `batches`; returns a (steps, 2) tensor of (loss sum, samples) per step."""
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    sums = []
    for x, y in batches:
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        if after_backward is not None:
            after_backward(model)
        opt.step()
        sums.append((loss.item() * len(y), len(y)))
    return torch.tensor(sums, dtype=torch.float64)


def flat(model):
    return torch.cat([p.detach().flatten() for p in model.parameters()])


def max_over_ranks(value):
    t = torch.tensor(float(value), dtype=torch.float64)
    dist.all_reduce(t, op=dist.ReduceOp.MAX)  # c10d: the worst rank's number
    return t.item()


def data(args, size):
    """(this rank's DataLoader over its DistributedSampler shard, the sequential run's full batches)."""
    global_batch = args.batch_size * size
    gen = torch.Generator().manual_seed(args.seed)  # the same data on every rank; the samplers split it
    n = args.steps * global_batch
    dataset = TensorDataset(torch.randn(n, args.features, generator=gen),
                            torch.randint(args.classes, (n,), generator=gen))
    shard = DataLoader(dataset, batch_size=args.batch_size,
                       sampler=DistributedSampler(dataset, shuffle=True, seed=args.seed))
    order = list(DistributedSampler(dataset, num_replicas=1, rank=0, shuffle=True, seed=args.seed))
    return shard, [dataset[order[i:i + global_batch]] for i in range(0, n, global_batch)]


def models(args, rank):
    """The four models, all holding rank 0's initial weights, and how far apart the ranks started."""
    torch.manual_seed(args.seed + rank)  # different on purpose: only a broadcast makes replicas agree
    base = mlp(args.features, args.hidden, args.classes)
    manual = copy.deepcopy(base)
    for p in manual.parameters():
        dist.broadcast(p.data, src=0)  # c10d: rank 0's initial weights everywhere
    ddp = DistributedDataParallel(copy.deepcopy(base))  # broadcasts rank 0's weights itself
    init = flat(manual).clone()
    gaps = {"before broadcast": max_over_ranks((flat(base) - init).abs().max()),
            "manual broadcast vs DDP's": max_over_ranks((flat(ddp.module) - init).abs().max())}
    built = {"manual": manual, "ddp": ddp, "sequential": copy.deepcopy(manual), "local": copy.deepcopy(manual)}
    return built, init, gaps


def weight_gaps(w, init):
    """Largest weight differences between the runs, over all ranks."""
    rank0 = {k: w[k].clone() for k in ("manual", "ddp")}
    for k in rank0:
        dist.broadcast(rank0[k], src=0)  # c10d: rank 0's replica, to compare every rank against
    gaps = {
        "manual - ddp": (w["manual"] - w["ddp"]).abs().max(),
        "manual - sequential": (w["manual"] - w["sequential"]).abs().max(),
        "ddp - sequential": (w["ddp"] - w["sequential"]).abs().max(),
        "local only - sequential": (w["local"] - w["sequential"]).abs().max(),
        "final - initial (manual)": (w["manual"] - init).abs().max(),
        "replica - rank 0 replica (manual, ddp)": max((w[k] - rank0[k]).abs().max() for k in rank0),
    }
    return {k: max_over_ranks(v) for k, v in gaps.items()}


def main(argv=None):
    parser = make_parser(__doc__)
    parser.add_argument("--steps", type=positive_int, default=5)
    parser.add_argument("--batch-size", type=positive_int, default=8, help="samples per rank per step")
    parser.add_argument("--lr", type=float, default=0.5)
    parser.add_argument("--features", type=positive_int, default=16)
    parser.add_argument("--hidden", type=positive_int, default=32)
    parser.add_argument("--classes", type=positive_int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    with distributed(args.backend) as (rank, size):
        shard, full = data(args, size)
        m, init, init_gaps = models(args, rank)
        losses = {"manual": train(m["manual"], shard, args.lr, lambda model: average_gradients(model, size)),
                  "ddp": train(m["ddp"], shard, args.lr),
                  "sequential": train(m["sequential"], full, args.lr)}
        train(m["local"], shard, args.lr)
        for name in ("manual", "ddp"):
            dist.all_reduce(losses[name], op=dist.ReduceOp.SUM)  # c10d: (loss sum, count) over ranks
        m["ddp"] = m["ddp"].module
        gaps = weight_gaps({k: flat(model) for k, model in m.items()}, init)
        if rank != 0:
            return
        print(f"MLP {args.features}-{args.hidden}-{args.classes}, {size} ranks x {args.batch_size} samples, "
              f"{args.steps} SGD steps, lr {args.lr}")
        for step in range(args.steps):
            row = "  ".join(f"{k} {(losses[k][step, 0] / losses[k][step, 1]).item():.6f}" for k in losses)
            print(f"step {step}: loss {row}")
        for name, gap in init_gaps.items():
            print(f"initial weights, max |w - w_rank0| {name} = {gap:.3e}")
        for name, gap in gaps.items():
            print(f"max |w {name}| = {gap:.3e}")


if __name__ == "__main__":
    main()
