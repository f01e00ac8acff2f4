import json

import numpy as np
import torch
from torch.utils.data import Dataset


class MelChunks(Dataset):
    """Index file: [{"npy": path, "tags": [...]}, ...]; each npy is (n_mels, frames)."""

    def __init__(self, index_path, tags, crop_frames, train=True):
        with open(index_path) as f:
            self.items = json.load(f)
        self.tag_ids = {t: i for i, t in enumerate(tags)}
        self.crop = crop_frames
        self.train = train

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        item = self.items[i]
        mel = np.load(item["npy"], mmap_mode="r")
        frames = mel.shape[1]
        if frames > self.crop:
            start = np.random.randint(0, frames - self.crop) if self.train else (frames - self.crop) // 2
            mel = mel[:, start:start + self.crop]
        else:
            mel = np.pad(mel, ((0, 0), (0, self.crop - frames)))
        target = np.zeros(len(self.tag_ids), dtype=np.float32)
        for t in item["tags"]:
            if t in self.tag_ids:
                target[self.tag_ids[t]] = 1.0
        return torch.from_numpy(np.ascontiguousarray(mel, dtype=np.float32)), torch.from_numpy(target)
