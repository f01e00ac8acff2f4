import numpy as np
import torch
from torch.utils.data import Dataset, DataLoader
from torch.utils.data.distributed import DistributedSampler


class SyntheticKinetics(Dataset):
    """Stand-in for the decoded Kinetics clips: every video is a tiny random array
    generated from its index, so all ranks see the same 'video' for the same id."""

    def __init__(self, num_videos, num_classes, frames=8, size=32, seed=0):
        self.num_videos = num_videos
        self.num_classes = num_classes
        self.frames = frames
        self.size = size
        self.seed = seed

    def __len__(self):
        return self.num_videos

    def decode(self, idx, clip_idx=0):
        rng = np.random.default_rng(self.seed * 100003 + idx * 31 + clip_idx)
        clip = rng.standard_normal((3, self.frames, self.size, self.size)).astype(np.float32)
        return torch.from_numpy(clip)

    def label(self, idx):
        return idx % self.num_classes

    def __getitem__(self, idx):
        clip_idx = np.random.randint(0, 10)  # random temporal jitter for training
        return self.decode(idx, clip_idx), self.label(idx)


def train_loader(dataset, batch_size, rank, world, workers=2):
    sampler = DistributedSampler(dataset, num_replicas=world, rank=rank, shuffle=True, seed=17)
    loader = DataLoader(dataset, batch_size=batch_size, sampler=sampler,
                        num_workers=workers, drop_last=True, pin_memory=True)
    return loader, sampler


def eval_video_ids(num_videos, rank, world):
    # every rank takes a strided slice of the test videos; no padding, no duplicates
    return list(range(rank, num_videos, world))
