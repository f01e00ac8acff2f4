import itertools
import random


def grid(space):
    keys = sorted(space)
    for values in itertools.product(*(space[k] for k in keys)):
        yield dict(zip(keys, values))


def random_search(space, num_samples, seed=0):
    rng = random.Random(seed)
    for _ in range(num_samples):
        cfg = {}
        for k, v in space.items():
            if isinstance(v, tuple) and len(v) == 2:     # (low, high) -> log-uniform
                lo, hi = v
                cfg[k] = lo * (hi / lo) ** rng.random()
            else:
                cfg[k] = rng.choice(v)
        yield cfg
