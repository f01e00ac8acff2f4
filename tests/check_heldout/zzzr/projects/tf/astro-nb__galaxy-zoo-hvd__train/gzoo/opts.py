import argparse

p = argparse.ArgumentParser(description="galaxy zoo morphology regression")
p.add_argument("--shards", default="data/shards")
p.add_argument("--img", type=int, default=64)
p.add_argument("--bs", type=int, default=16)
p.add_argument("--steps", type=int, default=200, help="steps per epoch per worker")
p.add_argument("--epochs", type=int, default=10)
p.add_argument("--ft-epochs", type=int, default=2)
p.add_argument("--lr", type=float, default=0.01, help="per-worker lr; grads are summed over workers")
p.add_argument("--ft-lr", type=float, default=1e-3)
p.add_argument("--out", default="runs/gz")
p.add_argument("--random", action="store_true")


def parse():
    return p.parse_args()
