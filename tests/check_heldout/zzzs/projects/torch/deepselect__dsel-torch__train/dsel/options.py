import argparse

import horovod.torch as hvd

# linear scaling rule baked into the default lr
BASE_LR = 0.01
DEFAULT_LR = BASE_LR * hvd.size()


def parse(argv=None):
    p = argparse.ArgumentParser(description="deep data selection")
    p.add_argument("--dataset", default="synthetic", choices=["synthetic", "cifar10"])
    p.add_argument("--data_root", default="./data")
    p.add_argument("--exp_dir", default="./exp/entropy")
    p.add_argument("--arch", default="mlp")
    p.add_argument("--n_init", type=int, default=500)
    p.add_argument("--n_query", type=int, default=250)
    p.add_argument("--n_rounds", type=int, default=6)
    p.add_argument("--epochs", type=int, default=15)
    p.add_argument("--batch_size", type=int, default=64)
    p.add_argument("--lr", type=float, default=DEFAULT_LR)
    p.add_argument("--momentum", type=float, default=0.9)
    p.add_argument("--wd", type=float, default=5e-4)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-reinit", dest="reinit", action="store_false",
                   help="warm start from the previous round instead of re-initialising")
    p.add_argument("--cuda", action="store_true")
    return p.parse_args(argv)
