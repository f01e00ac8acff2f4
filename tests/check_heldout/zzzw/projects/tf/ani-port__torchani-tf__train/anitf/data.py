import numpy as np

SPECIES_ORDER = {1: 0, 6: 1, 7: 2, 8: 3}


class ANIData:
    def __init__(self, path):
        d = np.load(path)
        self.species = np.array([SPECIES_ORDER[int(z)] for z in d["Z"]], np.int32)
        self.pos, self.forces = d["R"].astype(np.float32), d["F"].astype(np.float32)
        self.energy, self.natoms = d["E"].astype(np.float32), d["N"]
        self.ptr = np.concatenate([[0], np.cumsum(self.natoms)])

    def __len__(self):
        return len(self.energy)

    def self_energies(self, idx):
        """least-squares per-species reference energies on the given molecules"""
        A = np.zeros((len(idx), len(SPECIES_ORDER)))
        for k, m in enumerate(idx):
            np.add.at(A[k], self.species[self.ptr[m]:self.ptr[m + 1]], 1)
        coef, *_ = np.linalg.lstsq(A, self.energy[idx], rcond=None)
        return coef.astype(np.float32)

    def collate(self, idx):
        parts = [slice(self.ptr[m], self.ptr[m + 1]) for m in idx]
        return dict(species=np.concatenate([self.species[p] for p in parts]),
                    pos=np.concatenate([self.pos[p] for p in parts]),
                    forces=np.concatenate([self.forces[p] for p in parts]),
                    seg=np.repeat(np.arange(len(idx)), self.natoms[idx]).astype(np.int32),
                    energy=self.energy[idx], natoms=self.natoms[idx].astype(np.float32))


def worker_indices(n, rank, world, seed, val_frac=0.1):
    """one global shuffle (same seed everywhere) -> train/val, then contiguous blocks per worker"""
    perm = np.random.RandomState(seed).permutation(n)
    n_val = max(world, int(n * val_frac))
    val, train = perm[:n_val], perm[n_val:]
    per = len(train) // world
    per_val = len(val) // world
    return train[rank * per:(rank + 1) * per], val[rank * per_val:(rank + 1) * per_val]
