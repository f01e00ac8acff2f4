"""Frame decoding. The real repo wraps PyAV; the stub returns small random uint8 frames."""
import numpy as np
import torch
from torch.utils.data import Dataset

MEAN = np.array([0.45, 0.45, 0.45], dtype=np.float32)
STD = np.array([0.225, 0.225, 0.225], dtype=np.float32)


def decode_frames(video_id, start, num_frames, size):
    rng = np.random.default_rng(video_id * 1_000 + start)
    return rng.integers(0, 256, size=(num_frames, size, size, 3), dtype=np.uint8)


def normalize(frames):
    x = (frames.astype(np.float32) / 255.0 - MEAN) / STD
    return torch.from_numpy(x).permute(3, 0, 1, 2).contiguous()


class KineticsVideos(Dataset):
    def __init__(self, num_videos, num_classes, num_frames=4, size=32, video_len=64, offset=0):
        self.num_videos, self.num_classes = num_videos, num_classes
        self.num_frames, self.size, self.video_len, self.offset = num_frames, size, video_len, offset

    def __len__(self):
        return self.num_videos

    def clip(self, i, start):
        return normalize(decode_frames(self.offset + i, start, self.num_frames, self.size))

    def uniform_starts(self, num_clips):
        span = self.video_len - self.num_frames
        return [int(round(span * k / max(num_clips - 1, 1))) for k in range(num_clips)]

    def __getitem__(self, i):
        start = np.random.randint(0, self.video_len - self.num_frames)
        return self.clip(i, start), (self.offset + i) % self.num_classes
