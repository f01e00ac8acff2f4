import json
import random

import torch


class Sessions:
    """Item-id sessions, one JSON list per line; ids start at 1 (0 is padding)."""

    def __init__(self, path, max_len):
        with open(path) as f:
            self.sessions = [json.loads(line)[-(max_len + 1):] for line in f if line.strip()]
        self.sessions = [s for s in self.sessions if len(s) >= 2]
        self.num_items = max(max(s) for s in self.sessions) + 1
        self.max_len = max_len

    def split(self, valid_frac, seed):
        idx = list(range(len(self.sessions)))
        random.Random(seed).shuffle(idx)
        n_val = int(len(idx) * valid_frac)
        return idx[n_val:], idx[:n_val]

    def batches(self, indices, batch_size, rank, world, seed):
        mine = indices[rank::world]
        mine = mine[:len(indices) // world]
        random.Random(seed).shuffle(mine)
        for i in range(0, len(mine) - batch_size + 1, batch_size):
            yield self.collate([self.sessions[j] for j in mine[i:i + batch_size]])

    def collate(self, sessions):
        x = torch.zeros(len(sessions), self.max_len, dtype=torch.long)
        y = torch.zeros(len(sessions), self.max_len, dtype=torch.long)
        for r, s in enumerate(sessions):
            inp, tgt = s[:-1][-self.max_len:], s[1:][-self.max_len:]
            x[r, -len(inp):] = torch.tensor(inp)
            y[r, -len(tgt):] = torch.tensor(tgt)
        return x, y
