import json

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd

N_ATOM_TYPES = 20
N_BOND_TYPES = 4


class MolGraphs(Dataset):
    """jsonl, one molecule per line: {"atoms": [Z...], "bonds": [[i, j, order]...], "y": float}."""

    def __init__(self, records):
        self.records = records

    @classmethod
    def from_jsonl(cls, path):
        with open(path) as fh:
            return cls([json.loads(line) for line in fh if line.strip()])

    def __len__(self):
        return len(self.records)

    def __getitem__(self, i):
        return self.records[i]


def collate_directed(mols):
    """Concatenate molecules; every bond becomes two directed edges with a reverse-edge index."""
    atom_x, src, dst, bond_x, rev, mol_of_atom, ys = [], [], [], [], [], [], []
    n_atoms = 0
    for m, mol in enumerate(mols):
        atom_x.extend(min(z, N_ATOM_TYPES - 1) for z in mol["atoms"])
        for i, j, order in mol["bonds"]:
            e = len(src)
            src += [n_atoms + i, n_atoms + j]
            dst += [n_atoms + j, n_atoms + i]
            bond_x += [order, order]
            rev += [e + 1, e]
        mol_of_atom += [m] * len(mol["atoms"])
        n_atoms += len(mol["atoms"])
        ys.append(mol["y"])
    eye_a, eye_b = np.eye(N_ATOM_TYPES, dtype=np.float32), np.eye(N_BOND_TYPES, dtype=np.float32)
    return {
        "atom_x": torch.from_numpy(eye_a[atom_x]),
        "bond_x": torch.from_numpy(eye_b[np.asarray(bond_x, dtype=np.int64).reshape(-1)]),
        "src": torch.tensor(src, dtype=torch.long), "dst": torch.tensor(dst, dtype=torch.long),
        "rev": torch.tensor(rev, dtype=torch.long),
        "mol": torch.tensor(mol_of_atom, dtype=torch.long), "num_mols": len(mols),
        "y": torch.tensor(ys, dtype=torch.float32).unsqueeze(1),
    }


def build_loader(dataset, batch_size, train, seed=0):
    sampler = DistributedSampler(dataset, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=train,
                                 seed=seed, drop_last=train)
    return DataLoader(dataset, batch_size=batch_size, sampler=sampler, collate_fn=collate_directed,
                      drop_last=train), sampler
