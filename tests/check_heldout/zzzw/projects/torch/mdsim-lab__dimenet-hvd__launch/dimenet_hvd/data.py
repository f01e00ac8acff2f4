import numpy as np
import torch


def load_npz(path):
    d = np.load(path)
    ptr = np.concatenate([[0], np.cumsum(d["N"])])
    mols = []
    for k in range(len(d["N"])):
        a, b = ptr[k], ptr[k + 1]
        mols.append((d["Z"][a:b], d["R"][a:b], d["F"][a:b], float(d["E"][k])))
    return mols


def collate(mols):
    z = torch.from_numpy(np.concatenate([m[0] for m in mols])).long()
    pos = torch.from_numpy(np.concatenate([m[1] for m in mols])).float()
    forces = torch.from_numpy(np.concatenate([m[2] for m in mols])).float()
    energy = torch.tensor([m[3] for m in mols], dtype=torch.float32)
    natoms = torch.tensor([len(m[0]) for m in mols])
    batch = torch.repeat_interleave(torch.arange(len(mols)), natoms)
    return z, pos, batch, energy, forces, natoms


class Batches:
    """simple shuffling batch iterator over a list of molecules"""

    def __init__(self, mols, batch_size, shuffle):
        self.mols, self.bs, self.shuffle = mols, batch_size, shuffle

    def __len__(self):
        return (len(self.mols) + self.bs - 1) // self.bs

    def __iter__(self):
        order = np.random.permutation(len(self.mols)) if self.shuffle else np.arange(len(self.mols))
        for k in range(0, len(order), self.bs):
            yield collate([self.mols[i] for i in order[k:k + self.bs]])


def make_loaders(cfg, rank, world):
    mols = load_npz(cfg["dataset"])
    idx = np.random.permutation(len(mols))
    n_val = max(1, int(cfg["val_frac"] * len(mols)))
    val_idx, train_idx = idx[:n_val], idx[n_val:]
    my_train = np.array_split(train_idx, world)[rank]
    train = Batches([mols[i] for i in my_train], cfg["batch_size"], shuffle=True)
    val = Batches([mols[i] for i in val_idx], cfg["batch_size"], shuffle=False)
    return train, val
