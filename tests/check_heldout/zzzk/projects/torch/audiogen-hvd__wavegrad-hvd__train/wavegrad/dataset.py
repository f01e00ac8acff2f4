import glob
import os

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, Subset


class MelWaveDataset(Dataset):
    def __init__(self, paths):
        self.files = []
        for p in paths:
            self.files += sorted(glob.glob(os.path.join(p, "**", "*.npz"), recursive=True))

    def __len__(self):
        return len(self.files)

    def __getitem__(self, idx):
        d = np.load(self.files[idx])
        return {"audio": d["audio"].astype(np.float32), "spectrogram": d["mel"].astype(np.float32)}


class Collator:
    def __init__(self, params):
        self.params = params

    def collate(self, minibatch):
        samples_per_frame = self.params.hop_samples
        out_a, out_s = [], []
        for record in minibatch:
            start = np.random.randint(0, record["spectrogram"].shape[0] - self.params.crop_mel_frames + 1)
            end = start + self.params.crop_mel_frames
            out_s.append(record["spectrogram"][start:end].T)
            a0 = start * samples_per_frame
            out_a.append(record["audio"][a0:a0 + self.params.crop_mel_frames * samples_per_frame])
        return {"audio": torch.from_numpy(np.stack(out_a)), "spectrogram": torch.from_numpy(np.stack(out_s))}


def from_path(data_dirs, params, rank, world):
    dataset = MelWaveDataset(data_dirs)
    # contiguous, equal-size block per worker; every block reshuffled locally
    per = len(dataset) // world
    part = Subset(dataset, list(range(rank * per, (rank + 1) * per)))
    return DataLoader(part, batch_size=params.batch_size, collate_fn=Collator(params).collate,
                      shuffle=True, num_workers=2, pin_memory=True, drop_last=True)
