"""Rank script for hvdkit.torch's steps, one check per subcommand; prints lines the tests parse.

    mpirun -n 2 python tests/ranks/steps_torch.py shard|metrics|warmup|order|broadcast|checkpoint [...] [...]

Several checks run in turn in one launch (tests/steps.py's shared launches): each sets up its own model,
seeds and data, so none depends on what ran before it.
"""
import argparse
import hashlib
import json
import os
import signal
import warnings

import torch

import hvdkit.torch as hk


def digest(tensors):
    h = hashlib.sha256()
    for t in tensors:
        h.update(t.detach().contiguous().numpy().tobytes())
    return h.hexdigest()


def shard(ctx, args):
    n = args.n  # deliberately not a multiple of size * batch
    ds = torch.utils.data.TensorDataset(torch.arange(n))
    for drop_last in (False, True):
        loader = hk.shard(ds, batch_size=3, shuffle=True, seed=5, drop_last=drop_last)
        for epoch in (0, 1):
            loader.set_epoch(epoch)
            seen = [int(i) for (batch,) in loader for i in batch]
            print("SHARD", json.dumps({"rank": ctx.rank, "drop_last": drop_last, "epoch": epoch,
                                       "steps": len(loader), "samples": seen}), flush=True)
    evaluated = [int(i) for (batch,) in hk.shard_eval(ds, batch_size=3) for i in batch]
    print("EVAL", json.dumps({"rank": ctx.rank, "samples": evaluated}), flush=True)


def metrics(ctx, args):
    # Rank r sees r + 1 samples, each of value r: a mean of per-rank means would give (size-1)/2.
    values = torch.full((ctx.rank + 1,), float(ctx.rank))
    out = hk.average_metrics({"loss": (values.sum(), values.numel()), "acc": (values.numel(), values.numel()),
                              "empty": (0.0, 0)})
    print("METRICS", ctx.rank, json.dumps(out), flush=True)


def warmup(ctx, args):
    base = 0.1
    model = torch.nn.Linear(2, 1)
    opt = torch.optim.SGD(model.parameters(), lr=hk.scale_lr(base, rule=args.rule))
    sched = hk.warmup(opt, steps=args.warmup, rule=args.rule)
    lrs = []
    for _ in range(args.warmup + 3):
        lrs.append(opt.param_groups[0]["lr"])
        opt.step()
        sched.step()
    print("LRS", ctx.rank, json.dumps({"scaled": hk.scale_lr(base, rule=args.rule), "lrs": lrs}), flush=True)


def order(ctx, args):
    """Steps 4 and 5 in both orders: the LR each optimizer step really applied, read off the update; and the
    same when the run is saved after 2 steps and a new run resumes from the checkpoint (step 7).

    One weight, loss = weight * (rank + 1): the averaged gradient is (size + 1) / 2, so plain SGD moves the
    weight by lr * (size + 1) / 2. Any warning (PyTorch's scheduler-order one) fails the check.
    """
    warnings.simplefilter("error")

    def build(name):
        model = torch.nn.Linear(1, 1, bias=False)
        torch.nn.init.zeros_(model.weight)
        opt = torch.optim.SGD(model.parameters(), lr=hk.scale_lr(0.1))
        if name == "warmup_first":
            sched = hk.warmup(opt, steps=args.warmup)
            opt = hk.distributed_optimizer(opt, model)
        else:
            opt = hk.distributed_optimizer(opt, model)
            sched = hk.warmup(opt, steps=args.warmup)
        return model, opt, sched

    def applied(model, opt, sched, steps):
        lrs = []
        for _ in range(steps):
            before = model.weight.item()
            opt.zero_grad()
            (model.weight * (ctx.rank + 1.0)).sum().backward()
            opt.step()
            sched.step()
            lrs.append((before - model.weight.item()) / ((ctx.size + 1) / 2))
        return lrs

    out = {}
    for name in ("warmup_first", "optimizer_first"):
        out[name] = applied(*build(name), args.warmup + 2)
        ckpt = hk.Checkpointer(f"order-{name}")
        model, opt, sched = build(name)
        lrs = applied(model, opt, sched, 2)
        ckpt.save(0, model=model, optimizer=opt, scheduler=sched)
        model, opt, sched = build(name)  # a new run
        ckpt.restore(model=model, optimizer=opt, scheduler=sched)
        out[name + "_resumed"] = lrs + applied(model, opt, sched, args.warmup)
    print("ORDER", ctx.rank, json.dumps(out), flush=True)


def bn_model(seed):
    torch.manual_seed(seed)
    return torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.BatchNorm1d(8), torch.nn.ReLU(), torch.nn.Linear(8, 2))


def broadcast(ctx, args):
    model = bn_model(10 + ctx.rank)
    opt = torch.optim.Adam(model.parameters(), lr=0.01 * (ctx.rank + 1))
    # Rank-local steps on rank-dependent data: parameters, BN buffers and Adam moments all differ.
    for _ in range(ctx.rank + 1):
        x = torch.randn(16, 4) + ctx.rank
        opt.zero_grad()
        model(x).square().mean().backward()
        opt.step()
    hk.broadcast_state(model, opt)
    state = opt.state_dict()
    moments = [s[k] for s in state["state"].values() for k in ("exp_avg", "exp_avg_sq")]
    steps = [float(s["step"]) for s in state["state"].values()]
    print("BCAST", ctx.rank, digest(list(model.state_dict().values())), digest(moments), steps[0],
          opt.param_groups[0]["lr"], flush=True)


# Adam turns rounding noise into whole steps on a gradient that is exactly zero in theory (the bias in
# front of batch norm); SGD with momentum keeps state to restore yet moves such weights by the noise only.
OPTIMIZERS = {"adam": torch.optim.Adam, "sgd": lambda params, lr: torch.optim.SGD(params, lr=lr, momentum=0.9)}


def checkpoint(ctx, args):
    """Train `epochs`; with --kill-after E, rank size-1 is SIGKILLed right after epoch E is saved."""
    torch.manual_seed(0)
    ds = torch.utils.data.TensorDataset(torch.randn(64, 4), torch.randint(0, 2, (64,)))
    model = bn_model(20 + ctx.rank)
    opt = hk.distributed_optimizer(OPTIMIZERS[args.optimizer](model.parameters(), lr=hk.scale_lr(0.01)), model)
    sched = hk.warmup(opt, steps=6)
    loader = hk.shard(ds, batch_size=4, seed=1)
    hk.broadcast_state(model, opt)
    ckpt = hk.Checkpointer(args.dir, keep=2)
    start = ckpt.restore(model=model, optimizer=opt, scheduler=sched, loader=loader)
    print("START", ctx.rank, start, loader.epoch, sched.last_epoch, digest(model.parameters()), flush=True)
    for epoch in range(start, args.epochs):
        loader.set_epoch(epoch)
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            opt.step()
            sched.step()
        wrote = ckpt.save(epoch, model=model, optimizer=opt, scheduler=sched, loader=loader, note=f"epoch {epoch}")
        print("SAVED", ctx.rank, epoch, digest(model.parameters()), wrote, flush=True)
        if epoch == args.kill_after:
            hk.average_metrics({"saved": (1, 1)})  # a barrier: the kill comes after rank 0's file is complete
            if ctx.rank == ctx.size - 1:
                os.kill(os.getpid(), signal.SIGKILL)
    print("DONE", ctx.rank, digest(model.parameters()), ckpt.values.get("note"), flush=True)
    # The values themselves, for runs that can only be compared with a tolerance (4-rank Gloo sums).
    flat = torch.cat([p.detach().flatten() for p in model.parameters()]).tolist()
    print("WEIGHTS", ctx.rank, json.dumps(flat, separators=(",", ":")), flush=True)


def allreduce(ctx, args):
    """tests/test_launch_allreduce.py: Horovod's own allreduce of (rank + 1) * [0, 1, 2, 3], Sum and Average."""
    import horovod.torch as hvd
    x = (hvd.rank() + 1) * torch.arange(4, dtype=torch.float64)
    s = hvd.allreduce(x, op=hvd.Sum, name="s")
    a = hvd.allreduce(x, op=hvd.Average, name="a")
    print("RESULT", hvd.rank(), hvd.size(), *s.tolist(), *a.tolist(), flush=True)


def equiv(ctx, args):
    """tests/test_equivalence.py: data-parallel training against sequential training (equiv_torch.py)."""
    from equiv_torch import run
    run(ctx, args.equiv_batch)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("checks", nargs="+", metavar="check",
                    choices=["shard", "metrics", "warmup", "order", "broadcast", "checkpoint", "allreduce", "equiv"])
    ap.add_argument("--n", type=int, default=23)
    ap.add_argument("--rule", default="linear")
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--equiv-batch", type=int, default=4, help="equiv: samples per rank per step")
    ap.add_argument("--dir", default="ckpt")
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--kill-after", type=int, default=-1)
    ap.add_argument("--optimizer", choices=sorted(OPTIMIZERS), default="adam", help="checkpoint: optimizer")
    args = ap.parse_args()
    ctx = hk.init(seed=0, threads=1)
    for check in args.checks:  # in turn, each with the warning filters it started with
        with warnings.catch_warnings():
            globals()[check](ctx, args)


if __name__ == "__main__":
    main()
