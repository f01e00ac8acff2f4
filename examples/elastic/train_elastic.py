"""Elastic training with Horovod: a worker dies mid-epoch and the others finish the job without it.

    horovodrun -np 3 --min-np 2 --max-np 3 --host-discovery-script examples/elastic/discover.sh \\
        --gloo-timeout-seconds 10 python examples/elastic/train_elastic.py --kill-rank 1

A small regression model trained on synthetic data with Horovod's elastic API for PyTorch:
`hvd.elastic.TorchState` holds the model, the optimizer, the `hvd.elastic.ElasticSampler` and the
bookkeeping below; `state.commit()` every --commit-every steps copies it to memory; `@hvd.elastic.run`
catches the error a lost worker causes, rolls back to the last commit, re-forms the ring with the
workers left, broadcasts the state from the new rank 0 and calls train() again. The sampler then deals
out only the samples of the epoch not yet committed, over the new number of workers.

To show that nothing is lost or done twice, every step allgathers the indices of the samples each rank
used; they are committed with the state (so a rollback forgets them with the model update), and rank 0
writes them per epoch to --out together with the world size of every membership and the samples
redone after each reset. `--kill-rank R --kill-epoch E --kill-step S` makes rank R SIGKILL itself
before step S of epoch E, once (a marker file beside --out stops it repeating after the reset).

Horovod blacklists a host whose worker failed. discover.sh therefore names this machine three ways
(localhost, 127.0.0.1, its address), one slot each: losing one worker removes one "host", and the job
goes on with two. --gloo-timeout-seconds bounds how long a survivor can wait on the dead worker before
it notices (Horovod's default of 30 s was hit in 3 of 5 runs here). See docs/elastic.md.
"""
import argparse
import os
import signal
import time

import torch
import horovod.torch as hvd

import hvdkit.torch as hk
from hvdkit.common.argtypes import Parser, positive_int
from hvdkit.common.files import write_json


def parse_args(argv=None):
    p = Parser(description=__doc__.split("\n\n")[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--epochs", type=positive_int, default=3, help="passes over the data")
    p.add_argument("--samples", type=positive_int, default=199,
                   help="size of the synthetic data set (odd, so that the sampler pads at 2 and 3 workers)")
    p.add_argument("--features", type=positive_int, default=8, help="inputs of the linear model")
    p.add_argument("--batch-size", type=positive_int, default=8, help="samples per worker per step")
    p.add_argument("--lr", type=float, default=0.02, help="learning rate of one worker (scaled by the world size)")
    p.add_argument("--commit-every", type=positive_int, default=2, help="steps between state.commit() calls")
    p.add_argument("--seed", type=int, default=0, help="data and shuffling seed, the same on every worker")
    p.add_argument("--out", default="elastic_run.json", help="record written by rank 0 at the end")
    p.add_argument("--min-step-seconds", type=float, default=0.0,
                   help="pad each step to at least this long, as a real model's step would be (this one takes ~1 ms)")
    p.add_argument("--kill-rank", type=int, default=-1, help="rank that SIGKILLs itself once (-1: none)")
    p.add_argument("--kill-epoch", type=int, default=1, help="epoch of the kill, counted from 0")
    p.add_argument("--kill-step", type=int, default=3, help="step within the epoch, counted from 0")
    return p.parse_args(argv)


def make_data(n, features, seed):
    """y = X w + noise, the same on every worker (the seed fixes it); returns a dataset of (x, y, index)."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, features, generator=g)
    w = torch.randn(features, 1, generator=g)
    y = x @ w + 0.1 * torch.randn(n, 1, generator=g)
    return torch.utils.data.TensorDataset(x, y, torch.arange(n))


def real_mask(sampler, batch_idx, batch_size, length):
    """Which samples of this worker's batch are real, not padding.

    ElasticSampler, like DistributedSampler, pads the remaining indices with copies of the first ones
    until they divide evenly among the workers; worker r takes positions r, r + size, ... . Padding
    would train on a few samples twice, so it is masked out of the loss.
    """
    positions = sampler.rank + (batch_idx * batch_size + torch.arange(length)) * sampler.num_replicas
    return positions < len(sampler.remaining_indices)


def evaluate(model, data):
    """Mean squared error over the whole data set: each worker takes every size-th sample."""
    x, y, _ = data[hvd.rank()::hvd.size()]
    with torch.no_grad():
        sse = ((model(x) - y) ** 2).sum()
    return hk.average_metrics({"mse": (sse, len(y))})["mse"]  # Horovod: (sum, count) pairs over all workers


def main():
    args = parse_args()
    hk.init(seed=args.seed, threads=1)  # Horovod: hvd.init(); one intra-op thread per worker
    data = make_data(args.samples, args.features, args.seed)
    model = torch.nn.Linear(args.features, 1)
    # Horovod: shuffles all indices with seed + epoch, then skips those already committed this epoch.
    sampler = hvd.elastic.ElasticSampler(data, shuffle=True, seed=args.seed)
    loader = torch.utils.data.DataLoader(data, batch_size=args.batch_size, sampler=sampler)
    optimizer = torch.optim.SGD(model.parameters(), lr=hk.scale_lr(args.lr))  # Horovod: lr x world size
    optimizer = hk.distributed_optimizer(optimizer, model)  # Horovod: average gradients
    kill_marker = os.path.abspath(args.out) + ".killed"

    # Horovod: everything a new or surviving worker needs, restored/broadcast on a reset. Plain
    # attributes are saved by reference: always assign new lists, never append in place, or a rollback
    # would keep the uncommitted part.
    state = hvd.elastic.TorchState(model=model, optimizer=optimizer, sampler=sampler, epoch=0,
                                   seen=[], epochs_seen=[], memberships=[], losses=[],
                                   epoch_seconds=[], epoch_started=time.time())
    reached = {"epoch": 0, "processed": 0}  # this process's furthest point, not part of the state
    redone = {"samples": 0}

    def on_reset():
        # Horovod: runs after the rollback to the last commit, before the new rank 0 broadcasts the state
        # (which drops any change made here to the state's plain attributes).
        for group in optimizer.param_groups:
            group["lr"] = hk.scale_lr(args.lr)
        # Horovod: after a graceful removal (the discovery script drops a host) Horovod skips the sync, the
        # only place the sampler re-deals; without this it would replay the epoch over the old world size
        # (measured: 325 samples in a 199-sample epoch; horovod issue #3399).
        sampler.reset()
        same_epoch = reached["epoch"] == state.epoch
        redone["samples"] = reached["processed"] - sampler.processed_num if same_epoch else None
        hk.print0(f"reset: {hvd.size()} workers, back to epoch {state.epoch} sample {sampler.processed_num}"
                  f" (last commit); {redone['samples']} samples to redo")

    state.register_reset_callbacks([on_reset])

    @hvd.elastic.run  # Horovod: on a lost worker, restore the last commit, re-form the ring, call again
    def train(state):
        joined = {"epoch": state.epoch, "sample": sampler.processed_num, "size": hvd.size(),
                  "redone_samples": redone["samples"], "time": time.time()}
        state.memberships = state.memberships + [joined]
        while state.epoch < args.epochs:
            model.train()
            for batch_idx, (x, y, idx) in enumerate(loader):
                step_started = time.time()
                if (hvd.rank() == args.kill_rank and state.epoch == args.kill_epoch
                        and batch_idx == args.kill_step and not os.path.exists(kill_marker)):
                    with open(kill_marker, "w") as f:
                        f.write(f"{time.time()}\n")
                    os.kill(os.getpid(), signal.SIGKILL)
                mask = real_mask(sampler, batch_idx, args.batch_size, len(idx))
                used = hvd.allgather_object(idx[mask].tolist(), name="elastic.used")  # Horovod: every worker's samples
                n_used = sum(len(u) for u in used)
                optimizer.zero_grad()
                per_sample = ((model(x) - y) ** 2).squeeze(1) * mask
                # Horovod: the optimizer averages over workers, so this is the mean over all real samples.
                (per_sample.sum() * hvd.size() / max(n_used, 1)).backward()
                optimizer.step()
                state.seen = state.seen + [i for u in used for i in u]
                sampler.record_batch(batch_idx, args.batch_size)  # Horovod: these samples are done
                reached.update(epoch=state.epoch, processed=sampler.processed_num)
                time.sleep(max(0.0, args.min_step_seconds - (time.time() - step_started)))
                if (batch_idx + 1) % args.commit_every == 0:
                    state.commit()  # Horovod: a failure after this point comes back here, not further
            mse = evaluate(model, data)
            hk.print0(f"epoch {state.epoch}: {hvd.size()} workers, {len(state.seen)} samples, mse {mse:.4f}")
            state.epochs_seen = state.epochs_seen + [state.seen]
            state.losses = state.losses + [mse]
            # With a reset inside, this includes the steps before it, the recovery and the steps redone.
            state.epoch_seconds = state.epoch_seconds + [time.time() - state.epoch_started]
            state.seen = []
            state.epoch += 1
            sampler.set_epoch(state.epoch)  # Horovod: at the end of the epoch, it forgets the processed samples
            reached.update(epoch=state.epoch, processed=0)
            state.epoch_started = time.time()
            state.commit()

    train(state)
    if hvd.rank() == 0:
        record = {"epochs": state.epoch, "samples": args.samples, "final_size": hvd.size(),
                  "memberships": state.memberships, "mse": state.losses,
                  "epoch_seconds": state.epoch_seconds,
                  "epoch_indices": state.epochs_seen, "commit_every": args.commit_every,
                  "batch_size": args.batch_size}
        write_json(args.out, record, indent=None)
        sizes = [m["size"] for m in state.memberships]
        hk.print0(f"done: {state.epoch} epochs, world sizes {sizes}, record {args.out}")


if __name__ == "__main__":
    main()
