import numpy as np
import torch


class AtomicData:
    __slots__ = ("z", "pos", "forces", "energy")

    def __init__(self, z, pos, forces, energy):
        self.z, self.pos, self.forces, self.energy = z, pos, forces, energy


def read_npz(path):
    d = np.load(path)
    ptr = np.concatenate([[0], np.cumsum(d["N"])])
    return [AtomicData(d["Z"][a:b], d["R"][a:b], d["F"][a:b], d["E"][k])
            for k, (a, b) in enumerate(zip(ptr[:-1], ptr[1:]))]


def collate(configs):
    counts = torch.tensor([len(c.z) for c in configs])
    return {
        "node_attrs": torch.from_numpy(np.concatenate([c.z for c in configs])).long(),
        "positions": torch.from_numpy(np.concatenate([c.pos for c in configs])).float(),
        "forces": torch.from_numpy(np.concatenate([c.forces for c in configs])).float(),
        "energy": torch.tensor(np.array([c.energy for c in configs]), dtype=torch.float32),
        "batch": torch.repeat_interleave(torch.arange(len(configs)), counts),
        "num_atoms": counts,
    }


def partition(configs, rank, world, seed):
    """shuffle with a common seed, then give every rank its own contiguous piece"""
    perm = np.random.default_rng(seed).permutation(len(configs))
    per = len(perm) // world          # drop the remainder so all ranks run the same number of steps
    mine = perm[rank * per:(rank + 1) * per]
    return [configs[i] for i in mine]


def batches(configs, batch_size, shuffle=False, seed=0):
    order = np.random.default_rng(seed).permutation(len(configs)) if shuffle else np.arange(len(configs))
    for k in range(0, len(order), batch_size):
        yield collate([configs[i] for i in order[k:k + batch_size]])
