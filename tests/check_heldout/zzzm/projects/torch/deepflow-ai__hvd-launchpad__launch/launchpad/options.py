import argparse
import os


def build_parser():
    p = argparse.ArgumentParser("launchpad")
    g = p.add_argument_group("launch")
    g.add_argument("--launcher", choices=["run", "external"], default="run",
                   help="'run': spawn workers with horovod.run; 'external': started by horovodrun")
    g.add_argument("--num-proc", type=int, default=int(os.environ.get("LP_NUM_PROC", 2)))
    g.add_argument("--hosts", default=os.environ.get("LP_HOSTS"))
    g.add_argument("--verbose", type=int, default=1)

    g = p.add_argument_group("train")
    g.add_argument("--arch", default="cnn", choices=["cnn", "mlp"])
    g.add_argument("--epochs", type=int, default=20)
    g.add_argument("--batch-size", type=int, default=128)
    g.add_argument("--base-lr", type=float, default=0.05)
    g.add_argument("--momentum", type=float, default=0.9)
    g.add_argument("--wd", type=float, default=5e-4)
    g.add_argument("--n-samples", type=int, default=5000, help="synthetic dataset size")
    g.add_argument("--ckpt-dir", default=os.environ.get("LP_CKPT_DIR", "ckpt"))
    g.add_argument("--seed", type=int, default=0)
    return p


def parse_args(argv=None):
    return build_parser().parse_args(argv)
