import argparse
import os


def parse_args(argv=None):
    p = argparse.ArgumentParser(description="PyTorch synthetic benchmark")
    p.add_argument("--model", default="resnet50")
    p.add_argument("--batch-size", type=int, default=32, help="per-GPU batch size")
    p.add_argument("--image-size", type=int, default=224)
    p.add_argument("--base-lr", type=float, default=0.0125)
    p.add_argument("--fp16-allreduce", action="store_true")
    p.add_argument("--num-warmup-batches", type=int, default=10)
    p.add_argument("--num-batches-per-iter", type=int, default=10)
    p.add_argument("--num-iters", type=int, default=10)
    p.add_argument("--no-cuda", action="store_true")
    p.add_argument("--save-model", default=None, help="write the final weights here (rank 0)")
    p.add_argument("--results-dir", default=os.environ.get("BENCH_RESULTS", "results"))
    p.add_argument("--job-id", default=os.environ.get("SLURM_JOB_ID", "local"))
    return p.parse_args(argv)
