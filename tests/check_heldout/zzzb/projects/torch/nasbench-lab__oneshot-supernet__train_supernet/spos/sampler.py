import random


class UniformPathSampler:
    """Uniform single-path sampling.

    The generator is re-seeded from (seed, epoch, step), so every worker draws the
    same path for the same step without having to communicate it.
    """

    def __init__(self, num_choices, seed=0):
        self.num_choices = list(num_choices)
        self.seed = seed

    def sample(self, epoch, step):
        rng = random.Random(self.seed * 1_000_003 + epoch * 10_007 + step)
        return [rng.randrange(n) for n in self.num_choices]

    def fixed(self, name_idx):
        return [name_idx] * len(self.num_choices)
