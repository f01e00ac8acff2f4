import numpy as np
import torch


class TokenShard:
    """The contiguous slice of a uint16 token file that one worker owns."""

    def __init__(self, path, block_size, rank, world_size, split="train", val_frac=0.05):
        data = np.memmap(path, dtype=np.uint16, mode="r")
        n_val = int(len(data) * val_frac)
        data = data[:-n_val] if split == "train" else data[-n_val:]
        per_rank = len(data) // world_size
        self.tokens = data[rank * per_rank:(rank + 1) * per_rank]
        self.block_size = block_size

    def __len__(self):
        return len(self.tokens) - self.block_size - 1


class ResumableBatches:
    """Random windows of a shard. The generator is re-seeded from the step counter,
    so restarting at step k gives exactly the batches an uninterrupted run would have seen."""

    def __init__(self, shard, batch_size, seed, start_step=0):
        self.shard = shard
        self.batch_size = batch_size
        self.seed = seed
        self.step = start_step

    def state_dict(self):
        return {"step": self.step}

    def load_state_dict(self, state):
        self.step = state["step"]

    def __iter__(self):
        return self

    def __next__(self):
        g = torch.Generator().manual_seed(self.seed * 1_000_003 + self.step)
        ix = torch.randint(len(self.shard), (self.batch_size,), generator=g).tolist()
        bs = self.shard.block_size
        tok = self.shard.tokens
        x = torch.stack([torch.from_numpy(tok[i:i + bs].astype(np.int64)) for i in ix])
        y = torch.stack([torch.from_numpy(tok[i + 1:i + 1 + bs].astype(np.int64)) for i in ix])
        self.step += 1
        return x, y
