import numpy as np
import torch
from torch.utils.data import Dataset, DataLoader
from torch.utils.data.distributed import DistributedSampler


class EpicKitchensSegments(Dataset):
    """Action segments with verb/noun labels; frames are decoded lazily (stubbed here)."""

    def __init__(self, num_segments, frames=8, size=40, verbs=97, nouns=300, train=True):
        self.num_segments, self.frames, self.size = num_segments, frames, size
        self.verbs, self.nouns, self.train = verbs, nouns, train

    def __len__(self):
        return self.num_segments

    def __getitem__(self, i):
        rng = np.random.default_rng(i if self.train else 7_000_000 + i)
        clip = rng.random((3, self.frames, self.size, self.size), dtype=np.float32)
        return torch.from_numpy(clip), i % self.verbs, (i * 7) % self.nouns


def make_loaders(cfg, rank, world):
    train = EpicKitchensSegments(cfg["train_segments"])
    val = EpicKitchensSegments(cfg["val_segments"], train=False)
    tr_sampler = DistributedSampler(train, num_replicas=world, rank=rank, shuffle=True)
    va_sampler = DistributedSampler(val, num_replicas=world, rank=rank, shuffle=False)
    return (DataLoader(train, cfg["batch_size"], sampler=tr_sampler, drop_last=True, num_workers=cfg["workers"]),
            DataLoader(val, cfg["batch_size"], sampler=va_sampler, num_workers=cfg["workers"]),
            tr_sampler)
