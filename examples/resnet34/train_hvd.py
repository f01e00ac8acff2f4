"""ResNet34 training throughput on Horovod, TensorFlow 2 / Keras 3 or PyTorch, with hvdkit's eight steps.

    mpirun -n 8 python examples/resnet34/train_hvd.py --image-size 64 --batch-size 8 --num-steps 10

Synthetic ImageNet-shaped data by default (real data: --data fashion-mnist, or --data folder --data-dir
DIR with one subdirectory of images per class). Each rank times --num-steps steps after --warmup-steps
untimed ones (graph tracing, allocator warm-up); a step's time covers fetching its batch, forward,
backward, the gradient allreduce and the update. Reported per rank: images/s per step, mean +- std,
and the rank's rate (timed images / timed seconds). The total is the allreduced sum of the ranks'
rates, with the slowest and fastest rank, never rank 0's rate x ranks. `--json PATH` (default
$HVDKIT_RECORD, set by `hvdkit scale`) writes the run record described in docs/scale.md.

Steps 1, 2 and 8 are here; steps 3-7 in resnet_tf.py / resnet_torch.py, lines marked "Horovod:".
"""
import argparse
import importlib
import math
import os
import socket
import statistics
import sys
import time

import numpy as np

import hvdkit
from hvdkit.common import record as run_record
from hvdkit.common.context import usable_cores
from hvdkit.common.timeline_capture import parse_steps

import resnet_data

MODULES = {"tensorflow": "resnet_tf", "torch": "resnet_torch"}


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message}\n")


def _whole(minimum):
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be >= {minimum}, got {value}")
        return value
    parse.__name__ = f"integer >= {minimum}"
    return parse


positive, non_negative = _whole(1), _whole(0)


def parse_args(argv=None):
    p = _Parser(prog="train_hvd.py", description=__doc__.split("\n\n")[0],
                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--framework", choices=MODULES, default="tensorflow")
    p.add_argument("--data", choices=resnet_data.SOURCES, default="synthetic")
    p.add_argument("--data-dir", help="Fashion-MNIST's directory (default: searched), or the image folder")
    p.add_argument("--image-size", type=positive, default=224, help="images are SIZE x SIZE x 3 (32-64 for a CPU)")
    p.add_argument("--batch-size", type=positive, default=16,
                   help="images per step on each rank (16 keeps 8 ranks of 224-pixel ResNet34 within 24 GB)")
    p.add_argument("--global-batch-size", type=positive, default=None,
                   help="images per step over all ranks, split evenly (overrides --batch-size; strong scaling). "
                        f"Default: ${run_record.GLOBAL_BATCH_ENV}, which `hvdkit scale --strong` sets")
    p.add_argument("--num-steps", "--num_steps", type=positive, default=10, help="timed steps")
    p.add_argument("--warmup-steps", type=non_negative, default=2, help="untimed steps before the timed ones")
    p.add_argument("--num-classes", type=positive, default=1000, help="classes of the synthetic data")
    p.add_argument("--lr", type=float, default=0.0125, help="SGD learning rate of one rank (scaled by ranks)")
    p.add_argument("--lr-warmup-steps", type=non_negative, default=5,
                   help="ramp the LR from --lr to --lr x ranks over this many steps (Goyal et al. 2017)")
    p.add_argument("--fp16-allreduce", action="store_true", help="compress gradients to float16 for the allreduce")
    p.add_argument("--threads", type=positive, default=None,
                   help="intra-op threads per rank (default: the node's cores divided among its ranks)")
    p.add_argument("--checkpoint-dir", help="resume from the latest checkpoint here, save one at the end")
    p.add_argument("--timeline", metavar="PATH", help="record Horovod's timeline of --timeline-steps to PATH")
    p.add_argument("--timeline-steps", metavar="A:B", help="steps A..B-1 (counting warmup steps from 0); "
                   "default: the timed steps")
    p.add_argument("--timeline-mark-cycles", action="store_true",
                   help="also mark each Horovod background cycle in the timeline (cycle count and time stats)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", metavar="PATH", default=run_record.default_path(),
                   help=f"write the run record here (default: ${run_record.ENV}, set by `hvdkit scale`)")
    args = p.parse_args(argv)
    if args.lr <= 0:
        p.error(f"--lr must be > 0, got {args.lr}")
    if args.data == "folder" and not args.data_dir:
        p.error("--data folder needs --data-dir DIR (one subdirectory of images per class)")
    if args.json and os.path.isdir(args.json):
        p.error(f"--json {args.json} is a directory: give a file name, e.g. {os.path.join(args.json, 'run.json')}")
    timed = f"{args.warmup_steps}:{args.warmup_steps + args.num_steps}"
    args.timeline_steps = args.timeline_steps or timed
    try:
        parse_steps(args.timeline_steps)
    except ValueError as exc:
        p.error(f"--timeline-steps: {exc}")
    if args.timeline and os.environ.get("HOROVOD_TIMELINE", "DYNAMIC") != "DYNAMIC":
        p.error("HOROVOD_TIMELINE already records the whole run: unset it to use --timeline, or drop --timeline")
    try:
        args.global_batch_size = args.global_batch_size or run_record.global_batch_size()
    except run_record.RecordError as exc:
        p.error(str(exc))
    return args


def fail(ctx, message):
    """A usage error found after init (it depends on the number of ranks): one line from rank 0, exit 2."""
    if ctx.rank == 0:
        print(f"train_hvd.py: error: {message}", file=sys.stderr, flush=True)
    sys.exit(2)


def per_rank_stats(times, batch_size):
    rates = [batch_size / t for t in times]
    return {
        "rate": batch_size * len(times) / sum(times),
        "step_rate_mean": statistics.fmean(rates),
        "step_rate_std": statistics.stdev(rates) if len(rates) > 1 else 0.0,
    }


def main(argv=None):
    args = parse_args(argv)
    load = os.getloadavg()[0]  # before this job's own ranks get busy: was the machine shared?
    fw = importlib.import_module(MODULES[args.framework])
    hk = fw.hk
    window = None  # Horovod: a timeline window only when --timeline is given
    if args.timeline:  # Horovod: the timeline window is set up before init
        window = hk.timeline_window(args.timeline, args.timeline_steps, mark_cycles=args.timeline_mark_cycles)
    ctx = hk.init(seed=args.seed, threads=args.threads)  # Horovod: steps 1-2, start Horovod, split the cores
    if args.global_batch_size:
        if args.global_batch_size % ctx.size:
            fail(ctx, f"global batch {args.global_batch_size} does not split evenly over {ctx.size} ranks: "
                      f"use a multiple of {ctx.size}")
        args.batch_size = args.global_batch_size // ctx.size  # Horovod: strong scaling, fixed global batch
    total_steps = args.warmup_steps + args.num_steps
    try:
        trainer = fw.Trainer(args, ctx, args.batch_size * ctx.size * total_steps)
    except resnet_data.DataError as exc:
        fail(ctx, exc)
    hk.print0(f"ResNet34 ({fw.NAME}) on {ctx.size} rank(s) x {ctx.threads} thread(s), {args.data} data "
              f"{args.image_size}x{args.image_size}, batch {args.batch_size} per rank ({args.batch_size * ctx.size} "
              f"global), {args.warmup_steps} warmup + {args.num_steps} timed steps")

    batches = trainer.batches()
    times, loss_sum = [], 0.0
    for step in range(total_steps):
        if window:
            window.step(step)  # Horovod: timeline of the chosen steps only
        t0 = time.perf_counter()
        x, y = next(batches)
        loss = trainer.step(x, y)
        elapsed = time.perf_counter() - t0
        if step >= args.warmup_steps:
            times.append(elapsed)
            loss_sum += loss * args.batch_size
    if window:
        window.close()
    trainer.save()

    mine = per_rank_stats(times, args.batch_size)
    mean_loss = hk.average_metrics({"loss": (loss_sum, len(times) * args.batch_size)})["loss"]  # Horovod: step 8
    (total,) = fw.allreduce_sum([mine["rate"]], "resnet34.total_rate")  # Horovod: the ranks' rates, added
    node = {"host": socket.gethostname(), "cpu_count": os.cpu_count(), "affinity": usable_cores(), "times": times, **mine}
    ranks = fw.allgather(node, "resnet34.per_rank")  # Horovod: every rank's figures, for the report and record
    if ctx.rank != 0:
        return 0
    rec = make_record(args, ctx, fw, ranks, total, mean_loss, trainer, load)
    report(rec)
    if args.json:
        print(f"record: {run_record.write(args.json, rec)}")
    return 0


def make_record(args, ctx, fw, ranks, total, mean_loss, trainer, load):
    hosts = {}
    for r in ranks:
        hosts.setdefault(r["host"], []).append(r)
    oversubscribed = any(len(rs) > rs[0]["cpu_count"] for rs in hosts.values())
    import horovod
    versions = {"python": sys.version.split()[0], "hvdkit": hvdkit.__version__, "horovod": horovod.__version__,
                "numpy": np.__version__, **fw.versions()}
    return run_record.build(
        ctx.size, [r["rate"] for r in ranks], total, unit="images",
        program="examples/resnet34/train_hvd.py", framework=fw.NAME, model="resnet34", data=args.data,
        image_size=args.image_size, num_classes=trainer.num_classes,
        batch_size=args.batch_size, global_batch_size=args.batch_size * ctx.size,
        warmup_steps=args.warmup_steps, timed_steps=args.num_steps,
        hosts=len(hosts), local_size=ctx.local_size, threads_per_rank=ctx.threads,
        cpu_count=ranks[0]["cpu_count"], affinity_cores=[r["affinity"] for r in ranks],
        oversubscribed=oversubscribed, load_average=load, fp16_allreduce=args.fp16_allreduce,
        step_times=[r["times"] for r in ranks],
        step_rate_mean=[r["step_rate_mean"] for r in ranks], step_rate_std=[r["step_rate_std"] for r in ranks],
        loss=mean_loss, resumed_run=trainer.run_index, config=vars(args), versions=versions)


def report(rec):
    for rank, (mean, std, rate) in enumerate(zip(rec["step_rate_mean"], rec["step_rate_std"], rec["rank_rates"])):
        print(f"rank {rank}: mean image/s = {mean:.2f} standard deviation: {std:.2f} (rank rate {rate:.2f} img/s)")
    slow, fast = rec["slowest_rank"], rec["fastest_rank"]
    note = " [more ranks than cores on a node: oversubscribed]" if rec["oversubscribed"] else ""
    print(f"total: {rec['total_rate']:.2f} img/s on {rec['ranks']} rank(s) (sum of rank rates); "
          f"slowest rank {slow['rank']} {slow['rate']:.2f}, fastest rank {fast['rank']} {fast['rate']:.2f}{note}")
    print(f"loss: {rec['loss']:.4f} (mean over all ranks' timed steps)")
    if not math.isfinite(rec["loss"]):
        # Batch norm over a few 1x1 feature maps (tiny images, tiny batches) gives huge gradients.
        hint = "; float16 overflows above 65504: drop --fp16-allreduce" if rec["fp16_allreduce"] else ""
        print(f"warning: the loss is not finite: use a larger --batch-size or --image-size{hint} "
              "(the throughput above is still measured)", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
