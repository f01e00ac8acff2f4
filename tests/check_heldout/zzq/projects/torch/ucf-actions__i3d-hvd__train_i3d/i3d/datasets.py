import numpy as np
import torch
from torch.utils.data import Dataset


class UCF101Clips(Dataset):
    """Index of (video, clip) pairs. Decoding is stubbed with tiny random frames."""

    def __init__(self, split, num_videos, clips_per_video, num_classes=101, frames=16, size=56):
        self.split = split
        self.num_classes = num_classes
        self.frames, self.size = frames, size
        self.index = [(v, c) for v in range(num_videos) for c in range(clips_per_video)]

    def __len__(self):
        return len(self.index)

    def _decode(self, video_id, clip_id):
        seed = video_id * 1009 + clip_id + (0 if self.split == "train" else 500009)
        frames = np.random.RandomState(seed).rand(self.frames, self.size, self.size, 3)
        return torch.from_numpy(frames.astype(np.float32)).permute(3, 0, 1, 2)

    def __getitem__(self, i):
        video_id, clip_id = self.index[i]
        return self._decode(video_id, clip_id), video_id % self.num_classes, video_id
