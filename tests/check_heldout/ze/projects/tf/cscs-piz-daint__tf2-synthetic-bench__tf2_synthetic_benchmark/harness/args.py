import argparse
import os


def get_args():
    p = argparse.ArgumentParser(description="TensorFlow2 synthetic benchmark")
    p.add_argument("--model", default="ResNet50")
    p.add_argument("--image-size", type=int, default=224)
    p.add_argument("--batch-size", type=int, default=32, help="input batch size per GPU")
    p.add_argument("--fp16-allreduce", action="store_true", default=False)
    p.add_argument("--num-warmup-batches", type=int, default=10)
    p.add_argument("--num-batches-per-iter", type=int, default=10)
    p.add_argument("--num-iters", type=int, default=10)
    p.add_argument("--csv", default=os.path.join(os.environ.get("SCRATCH", "."), "daint_scaling.csv"))
    p.add_argument("--plot", action="store_true", help="redraw scaling.png from the csv")
    p.add_argument("--save-weights", default="", help="optional .weights.h5 path, written by rank 0")
    return p.parse_args()
