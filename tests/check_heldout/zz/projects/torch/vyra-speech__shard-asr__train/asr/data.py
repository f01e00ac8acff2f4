import csv
import io
import tarfile

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

VOCAB = ["_", " ", "'"] + [chr(c) for c in range(ord("a"), ord("z") + 1)]
CHAR2ID = {c: i for i, c in enumerate(VOCAB)}


class ShardedUtterances(Dataset):
    """Index rows: shard_path <tab> member_name <tab> transcript."""

    def __init__(self, index_path):
        with open(index_path) as f:
            self.rows = [r for r in csv.reader(f, delimiter="\t") if r]
        self._open = {}

    def __len__(self):
        return len(self.rows)

    def _tar(self, path):
        if path not in self._open:
            self._open[path] = tarfile.open(path)
        return self._open[path]

    def __getitem__(self, i):
        shard, member, text = self.rows[i]
        raw = self._tar(shard).extractfile(member).read()
        feats = torch.from_numpy(np.load(io.BytesIO(raw))).float()  # [T, n_mels]
        target = torch.tensor([CHAR2ID[c] for c in text.lower() if c in CHAR2ID])
        return feats, target


def collate(batch):
    feats, targets = zip(*batch)
    flen = torch.tensor([f.shape[0] for f in feats])
    tlen = torch.tensor([t.numel() for t in targets])
    x = torch.nn.utils.rnn.pad_sequence(feats, batch_first=True)
    return x, flen, torch.cat(targets), tlen


def build_loaders(cfg, rank, size):
    train = ShardedUtterances(cfg["data"]["train_index"])
    heldout = ShardedUtterances(cfg["data"]["heldout_index"])
    bs = cfg.getint("train", "batch_size")
    tr_sampler = DistributedSampler(train, num_replicas=size, rank=rank, shuffle=True, seed=7)
    ho_sampler = DistributedSampler(heldout, num_replicas=size, rank=rank, shuffle=False)
    return (DataLoader(train, batch_size=bs, sampler=tr_sampler, collate_fn=collate,
                       num_workers=2, drop_last=True),
            DataLoader(heldout, batch_size=bs, sampler=ho_sampler, collate_fn=collate),
            tr_sampler)
