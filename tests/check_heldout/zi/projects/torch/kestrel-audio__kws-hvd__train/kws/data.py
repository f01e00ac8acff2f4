import csv

import numpy as np
import torch
from torch.utils.data import Dataset


class FeatureDataset(Dataset):
    """Reads a manifest ``path,label,n_frames``; each path is a (frames, n_mels) .npy log-mel array."""

    def __init__(self, manifest, labels=None):
        with open(manifest) as f:
            rows = list(csv.DictReader(f))
        self.paths = [r["path"] for r in rows]
        self.lengths = [int(r["n_frames"]) for r in rows]
        names = labels or sorted({r["label"] for r in rows})
        self.label_to_idx = {n: i for i, n in enumerate(names)}
        self.targets = [self.label_to_idx[r["label"]] for r in rows]
        self.n_classes = len(names)
        self.n_mels = np.load(self.paths[0], mmap_mode="r").shape[1]

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, idx):
        feats = np.load(self.paths[idx]).astype(np.float32)
        feats = (feats - feats.mean(0)) / (feats.std(0) + 1e-5)  # per-utterance CMVN
        return torch.from_numpy(feats), self.targets[idx]


def pad_collate(batch):
    feats, targets = zip(*batch)
    lengths = torch.tensor([f.shape[0] for f in feats])
    padded = torch.nn.utils.rnn.pad_sequence(feats, batch_first=True)
    return padded, lengths, torch.tensor(targets)
