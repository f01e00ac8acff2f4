import os

import numpy as np
import torch
from torch.utils.data import Dataset


class SketchPhotoTriplets(Dataset):
    """Sketch anchor, photo of the same class, and a mined hard negative photo
    (nearest photo of another class in feature space, recomputed by `remine`)."""

    def __init__(self, root, split):
        d = os.path.join(root, split)
        self.sketch = torch.from_numpy(np.load(os.path.join(d, "sketch_feats.npy")).astype(np.float32))
        self.photo = torch.from_numpy(np.load(os.path.join(d, "photo_feats.npy")).astype(np.float32))
        self.labels = torch.from_numpy(np.load(os.path.join(d, "labels.npy")).astype(np.int64))
        self.hard_neg = torch.randint(len(self.photo), (len(self.sketch),))

    @torch.no_grad()
    def remine(self, sketch_emb, photo_emb):
        sims = sketch_emb @ photo_emb.t()
        same = self.labels[:, None] == self.labels[None, :]
        self.hard_neg = sims.masked_fill(same, -2).argmax(1).cpu()

    def __len__(self):
        return len(self.sketch)

    def __getitem__(self, i):
        return self.sketch[i], self.photo[i], self.photo[self.hard_neg[i]]
