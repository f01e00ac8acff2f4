"""What the four ResNet34 scripts share and a reader of the conversion can skip: options, errors, the banner.

Framework-free, and nothing in it is about Horovod except the options that only the converted scripts take.
"""
import argparse
import importlib.metadata
import os
import runpy
import sys
import time

import numpy as np

import hvdkit
from hvdkit.common import errors
from hvdkit.scale import record as run_record
from hvdkit.data.idx import DataError
from hvdkit.scale.meter import clock
from hvdkit.timeline.capture import parse_steps

import resnet_data

FRAMEWORKS = ("tensorflow", "torch")
# Before this job's own ranks get busy: was the machine shared?
LOAD_AT_START = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
# ResNet34's forward pass costs 3.6e9 multiply-adds per 224 x 224 image (He et al. 2016); a training step
# about three times that. On a CPU the examples' 224 px step ran at 1.8-1.9x the multiply-add rate of a
# 512 x 512 NumPy matmul measured at start-up (1 rank, 2 threads: 19.2 img/s against 224 GFLOP/s for torch,
# 20.4 against 247 for TF), slower under load: hence a range of multiples of that rate.
MACS_224 = 3.6e9
MATMUL_MULTIPLES = (0.5, 2.0)


class UsageError(errors.HvdkitError):
    """Bad input found on every rank alike: rank 0 says it for all (hvdkit's exception hook reads `collective`)."""
    collective = True


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


def hand_over(path):
    """`--framework torch` given to a TensorFlow script (or `tensorflow` to a PyTorch one): run the twin instead.

    Called before the framework is imported, so a PyTorch run never loads TensorFlow, and bad options
    (and --help) are answered without waiting for a framework to load.
    """
    main = sys.modules.get("__main__")
    if os.path.abspath(getattr(main, "__file__", "") or "") != os.path.abspath(path):
        return
    wanted = _framework_option(sys.argv[1:])
    here = "torch" if path.endswith("_torch.py") else "tensorflow"
    if wanted not in FRAMEWORKS or wanted == here:
        parse_args(horovod=os.path.basename(path).startswith("train_hvd"))  # exits 2 on a bad option
        return
    twin = path[:-len("_torch.py")] + ".py" if here == "torch" else path[:-len(".py")] + "_torch.py"
    sys.argv[0] = twin
    runpy.run_path(twin, run_name="__main__")
    sys.exit(0)


def _framework_option(argv):
    for i, arg in enumerate(argv):
        if arg == "--framework" and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith("--framework="):
            return arg.split("=", 1)[1]
    return None


def parse_args(argv=None, horovod=False):
    """The scripts' options; horovod=True adds those of the converted scripts."""
    prog = os.path.basename(sys.argv[0] or "train_resnet34.py")
    p = _Parser(prog=prog, description="ResNet34 training throughput, with live progress.",
                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--framework", choices=FRAMEWORKS, default="tensorflow",
                   help="torch runs this script's PyTorch twin (*_torch.py)")
    p.add_argument("--data", choices=resnet_data.SOURCES, default="synthetic")
    p.add_argument("--data-dir", help="Fashion-MNIST's directory (default: searched), or the image folder")
    p.add_argument("--image-size", type=positive, default=224, help="images are SIZE x SIZE x 3 (32-64 for a CPU)")
    p.add_argument("--batch-size", type=positive, default=16,
                   help="images per step" + (" on each rank (16 keeps 8 ranks of 224-pixel ResNet34 within 24 GB)"
                                             if horovod else ""))
    p.add_argument("--num-steps", "--num_steps", type=positive, default=10, help="timed steps")
    p.add_argument("--warmup-steps", type=non_negative, default=2,
                   help="untimed steps before the timed ones (graph tracing, allocator warm-up)")
    p.add_argument("--num-classes", type=positive, default=1000, help="classes of the synthetic data")
    p.add_argument("--lr", type=float, default=0.0125, help="SGD learning rate" + (" of one rank" if horovod else ""))
    p.add_argument("--print-every", type=positive, default=1, help="a progress line every N steps")
    p.add_argument("--seed", type=int, default=0)
    if horovod:
        p.add_argument("--global-batch-size", type=positive, default=None,
                       help="images per step over all ranks, split evenly (overrides --batch-size; strong scaling). "
                            f"Default: ${run_record.GLOBAL_BATCH_ENV}, which `hvdkit scale --strong` sets")
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
        p.add_argument("--json", metavar="PATH", default=run_record.default_path(),
                       help=f"write the run record here (default: ${run_record.ENV}, set by `hvdkit scale`)")
    args = p.parse_args(argv)
    if args.lr <= 0:
        p.error(f"--lr must be > 0, got {args.lr}")
    if args.data == "folder" and not args.data_dir:
        p.error("--data folder needs --data-dir DIR (one subdirectory of images per class)")
    args.total_steps = args.warmup_steps + args.num_steps
    args.shuffle = args.data != "synthetic"  # synthetic images are random already
    if horovod:
        _check_horovod_args(p, args)
    return args


def _check_horovod_args(p, args):
    if args.json and os.path.isdir(args.json):
        p.error(f"--json {args.json} is a directory: give a file name, e.g. {os.path.join(args.json, 'run.json')}")
    args.timeline_steps = args.timeline_steps or f"{args.warmup_steps}:{args.total_steps}"
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
    args.compression = "fp16" if args.fp16_allreduce else "none"


def batch_per_rank(args, ranks):
    """--batch-size, or --global-batch-size split evenly over the ranks (strong scaling)."""
    if not args.global_batch_size:
        return args.batch_size
    if args.global_batch_size % ranks:
        raise UsageError(f"global batch {args.global_batch_size} does not split evenly over {ranks} ranks: "
                         f"use a multiple of {ranks}")
    return args.global_batch_size // ranks


def check_steps(steps, samples, batch, ranks=1):
    if steps == 0:
        raise UsageError(f"{samples} samples give no full batch of {batch} on each of {ranks} rank(s): "
                         "use a smaller --batch-size")


def banner(args, framework, batch, ranks=1, threads=None, ranks_per_node=1, cpu=True):
    """What runs, and on a CPU with large images how long it will take and how to make it quick."""
    s = args.image_size
    per_rank = f" per rank ({batch * ranks} global)" if ranks > 1 else ""
    lines = [f"ResNet34 ({framework}) on {ranks} rank(s)" + (f" x {threads} thread(s)" if threads else "")
             + f", {args.data} data {s}x{s}, batch {batch}{per_rank}, {args.warmup_steps} warmup + "
             f"{args.num_steps} timed steps"]
    if cpu and s >= 128:
        work = 3 * MACS_224 * (s / 224) ** 2 * batch * args.total_steps  # this rank's
        # Measured alone; the ranks of this node then share its cores (os.cpu_count: a rank bound to one
        # core sees only that one in its affinity).
        cores = os.cpu_count() or 1
        share = min(1.0, cores / (ranks_per_node * (threads or max(1, cores // ranks_per_node))))
        rate = matmul_macs_per_s() * share
        fast, slow = (work / (rate * m) for m in reversed(MATMUL_MULTIPLES))
        lines.append(f"note: at this rank's share of the matmul rate here ({2 * rate / 1e9:.0f} GFLOP/s) these "
                     f"{args.total_steps} steps take roughly {clock(fast)} to {clock(slow)}; for a quick run "
                     "add --image-size 64 --num-steps 5")
    return "\n".join(lines)


def matmul_macs_per_s(n=512, repeats=3):
    """This process's float32 multiply-adds per second, measured now with NumPy's matmul (a few ms): with the
    threads it has and beside the ranks it shares the machine with, which measure at the same moment."""
    a = np.ones((n, n), np.float32)
    a @ a
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        a @ a
        best = min(best, time.perf_counter() - start)
    return n ** 3 / best


def record_fields(args, framework, num_classes, framework_versions):
    """The run record's description of this run (docs/scale.md)."""
    versions = {"python": sys.version.split()[0], "hvdkit": hvdkit.__version__,
                "horovod": importlib.metadata.version("horovod"), "numpy": np.__version__, **framework_versions}
    return dict(program="examples/resnet34/" + os.path.basename(sys.argv[0]), framework=framework, model="resnet34",
                data=args.data, image_size=args.image_size, num_classes=num_classes,
                fp16_allreduce=getattr(args, "fp16_allreduce", False),
                load_average=LOAD_AT_START, config=vars(args), versions=versions)


def run(main):
    """main()'s exit status; bad input (UsageError, a missing data set) is one line on stderr and status 2.

    Under Horovod, init() installs an exception hook that does the same; this covers the sequential scripts.
    """
    try:
        return main()
    except (errors.HvdkitError, DataError) as exc:
        # Every rank finds the same problem: rank 0 speaks for all (the launcher's variables say who is who).
        rank = os.environ.get("OMPI_COMM_WORLD_RANK") or os.environ.get("PMI_RANK") or os.environ.get("HOROVOD_RANK")
        if getattr(exc, "collective", False) and rank not in (None, "0"):
            sys.exit(errors.USAGE_STATUS)
        errors.fail(errors.one_line(exc))
