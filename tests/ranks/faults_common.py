"""Shared by faults_torch.py and faults_tf.py: the options, and the deliberate failure of one rank.

The failing rank prints `FAIL <rank> <unix time>` just before it raises (or SIGKILLs itself); the other
ranks are then inside an allreduce, where a job without hvdkit's exception hook waits for shutdown.
"""
import argparse
import os
import signal
import time


def options(doc):
    ap = argparse.ArgumentParser(description=doc.splitlines()[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("mode", choices=["raise", "kill"])
    ap.add_argument("--rank", type=int, default=-1, help="the rank that fails (negative: counted from the last)")
    ap.add_argument("--step", type=int, default=3, help="the training step at which it fails")
    ap.add_argument("--tag", default="", help="ignored; a unique word on the command line to find leftover ranks by")
    return ap.parse_args()


def ready(ctx):
    print("READY", ctx.rank, os.getpid(), flush=True)


def maybe_fail(ctx, args, step):
    if step != args.step or ctx.rank != args.rank % ctx.size:
        return
    print("FAIL", ctx.rank, time.time(), flush=True)
    if args.mode == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    raise RuntimeError(f"deliberate failure at step {step}")
