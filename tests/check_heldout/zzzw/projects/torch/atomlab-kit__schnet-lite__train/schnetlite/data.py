import numpy as np
import torch
from torch.utils.data import Dataset, DataLoader
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd


class NpzMolecules(Dataset):
    """packed molecules: Z, R, F are concatenated over all atoms, N = atoms per molecule"""

    def __init__(self, path):
        d = np.load(path)
        self.Z = torch.from_numpy(d["Z"]).long()
        self.R = torch.from_numpy(d["R"]).float()
        self.F = torch.from_numpy(d["F"]).float()
        self.E = torch.from_numpy(d["E"]).float()
        self.N = torch.from_numpy(d["N"]).long()
        self.offsets = torch.cat([torch.zeros(1, dtype=torch.long), torch.cumsum(self.N, 0)])

    def __len__(self):
        return len(self.N)

    def __getitem__(self, idx):
        a, b = self.offsets[idx].item(), self.offsets[idx + 1].item()
        return {"z": self.Z[a:b], "pos": self.R[a:b], "forces": self.F[a:b], "energy": self.E[idx]}


def collate_atoms(samples):
    n_atoms = torch.tensor([len(s["z"]) for s in samples])
    batch = torch.repeat_interleave(torch.arange(len(samples)), n_atoms)
    return {
        "z": torch.cat([s["z"] for s in samples]),
        "pos": torch.cat([s["pos"] for s in samples]),
        "forces": torch.cat([s["forces"] for s in samples]),
        "energy": torch.stack([s["energy"] for s in samples]),
        "n_atoms": n_atoms,
        "batch": batch,
    }


def build_loaders(args):
    train_set = NpzMolecules(args.train_file)
    val_set = NpzMolecules(args.val_file)
    train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank(),
                                       shuffle=True, seed=args.seed)
    val_sampler = DistributedSampler(val_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    kw = dict(collate_fn=collate_atoms, num_workers=args.num_workers, pin_memory=True)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, sampler=train_sampler, drop_last=True, **kw)
    val_loader = DataLoader(val_set, batch_size=args.batch_size, sampler=val_sampler, **kw)
    return train_loader, val_loader, train_sampler
