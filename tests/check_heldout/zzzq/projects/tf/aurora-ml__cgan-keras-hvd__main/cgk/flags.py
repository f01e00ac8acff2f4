import argparse


def get_flags(argv=None):
    ap = argparse.ArgumentParser(description="conditional GAN (keras 3) with horovod")
    ap.add_argument("--dataset", default="cifar10", choices=["cifar10", "random"])
    ap.add_argument("--batch-size", type=int, default=64, help="per worker")
    ap.add_argument("--epochs", type=int, default=25)
    ap.add_argument("--latent-dim", type=int, default=128)
    ap.add_argument("--g-lr", type=float, default=1e-4)
    ap.add_argument("--d-lr", type=float, default=4e-4)
    ap.add_argument("--no-lr-scaling", dest="lr_scaling", action="store_false")
    ap.add_argument("--workdir", default="work/cgan")
    ap.add_argument("--score-samples", type=int, default=500, help="per worker, for the IS-like score")
    return ap.parse_args(argv)
