import glob
import os
import random

import numpy as np
import torch
from torch.utils.data import Dataset, Sampler


class MeshFaces(Dataset):
    """One .npz per mesh: per-face features (F, 7), face adjacency (F, 3), per-face part labels (F,)."""

    def __init__(self, root, split):
        self.files = sorted(glob.glob(os.path.join(root, split, "*.npz")))
        self.face_counts = [int(np.load(f, mmap_mode="r")["labels"].shape[0]) for f in self.files]

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        z = np.load(self.files[i])
        return (torch.from_numpy(z["feats"]).float(), torch.from_numpy(z["adj"]).long(),
                torch.from_numpy(z["labels"]).long())


def collate_meshes(items):
    feats, adjs, labels, offset = [], [], [], 0
    for f, a, y in items:
        feats.append(f)
        adjs.append(a + offset)
        labels.append(y)
        offset += f.size(0)
    return torch.cat(feats), torch.cat(adjs), torch.cat(labels)


class SizeBucketSampler(Sampler):
    """Batches of meshes with similar face counts; each rank takes every num_replicas-th batch."""

    def __init__(self, face_counts, batch_size, num_replicas=1, rank=0, shuffle=True):
        self.face_counts, self.batch_size = face_counts, batch_size
        self.num_replicas, self.rank, self.shuffle = num_replicas, rank, shuffle

    def _batches(self):
        order = sorted(range(len(self.face_counts)), key=self.face_counts.__getitem__)
        batches = [order[i:i + self.batch_size] for i in range(0, len(order), self.batch_size)]
        if self.shuffle:
            random.shuffle(batches)
        return batches[: len(batches) - len(batches) % self.num_replicas]

    def __iter__(self):
        return iter(self._batches()[self.rank::self.num_replicas])

    def __len__(self):
        return len(self._batches()) // self.num_replicas
