import argparse


def parse(argv=None):
    ap = argparse.ArgumentParser(description="land-cover patch classifier, horovod + grad accumulation")
    ap.add_argument("--patches", type=int, default=6000, help="synthetic patches when --npy is unset")
    ap.add_argument("--npy", default=None)
    ap.add_argument("--patch-size", type=int, default=48)
    ap.add_argument("--bands", type=int, default=6)
    ap.add_argument("--classes", type=int, default=12)
    ap.add_argument("--micro-batch", type=int, default=32)
    ap.add_argument("--accum-steps", type=int, default=4)
    ap.add_argument("--lr", type=float, default=0.002)
    ap.add_argument("--epochs", type=int, default=25)
    ap.add_argument("--policy", default="mixed_float16", choices=["float32", "mixed_float16", "mixed_bfloat16"])
    ap.add_argument("--fp16-allreduce", type=int, default=1)
    ap.add_argument("--save-every", type=int, default=5)
    ap.add_argument("--workdir", default="./geoacc_run")
    return ap.parse_args(argv)
