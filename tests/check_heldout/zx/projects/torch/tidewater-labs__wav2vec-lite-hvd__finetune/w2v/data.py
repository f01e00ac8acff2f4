import csv

import numpy as np
import torch
from torch.utils.data import Dataset, Subset


class IntentManifest(Dataset):
    """tsv rows: path<TAB>label<TAB>split; paths point at 16 kHz mono .npy waveforms."""

    def __init__(self, manifest, split, max_seconds=6.0, sr=16000):
        with open(manifest) as f:
            rows = [r for r in csv.reader(f, delimiter="\t") if r[2] == split]
        self.paths = [r[0] for r in rows]
        self.labels = [int(r[1]) for r in rows]
        self.max_len = int(max_seconds * sr)

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, i):
        wav = torch.from_numpy(np.load(self.paths[i]).astype(np.float32))[: self.max_len]
        wav = torch.nn.functional.pad(wav, (0, self.max_len - wav.numel()))
        return wav, self.labels[i]


def worker_subset(dataset, rank, world_size, epoch_seed):
    """Same permutation on every worker, then a strided slice of equal length per worker."""
    g = torch.Generator().manual_seed(epoch_seed)
    perm = torch.randperm(len(dataset), generator=g).tolist()
    per_worker = len(perm) // world_size
    return Subset(dataset, perm[rank::world_size][:per_worker])
