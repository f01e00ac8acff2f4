import numpy as np
import torch


class ManifestTokens:
    """Every line of the manifest is a .npy file of token ids; windows are addressed by index."""

    def __init__(self, manifest, seq_len):
        with open(manifest) as f:
            self.paths = [l.strip() for l in f if l.strip()]
        self.seq_len = seq_len
        self.arrs = [np.load(p, mmap_mode="r") for p in self.paths]
        self.index = np.array([(a, o) for a, arr in enumerate(self.arrs)
                               for o in range(0, len(arr) - seq_len - 1, seq_len)], dtype=np.int64)

    def __len__(self):
        return len(self.index)

    def get(self, idx):
        a, o = self.index[idx]
        w = np.asarray(self.arrs[a][o:o + self.seq_len + 1], dtype=np.int64)
        return w[:-1], w[1:]

    def batches(self, indices, batch_size):
        for s in range(0, len(indices) - batch_size + 1, batch_size):
            xs, ys = zip(*(self.get(i) for i in indices[s:s + batch_size]))
            yield torch.from_numpy(np.stack(xs)), torch.from_numpy(np.stack(ys))


def rank_indices(n, rank, size, epoch=0, shuffle=True):
    idx = np.random.RandomState(epoch).permutation(n) if shuffle else np.arange(n)
    per = n // size
    return idx[rank * per:(rank + 1) * per]
