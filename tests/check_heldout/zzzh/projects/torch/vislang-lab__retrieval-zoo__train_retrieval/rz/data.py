import os

import numpy as np
import torch
from torch.utils.data import Dataset, DataLoader, DistributedSampler
import horovod.torch as hvd

from .vocab import Vocab


class CaptionPairs(Dataset):
    """(image feature, caption ids) pairs from <root>/<split>/{image_feats.npy,captions.tsv}."""

    def __init__(self, root, split, vocab, max_len=24):
        d = os.path.join(root, split)
        self.feats = np.load(os.path.join(d, "image_feats.npy")).astype(np.float32)
        with open(os.path.join(d, "captions.tsv")) as f:
            rows = [l.rstrip("\n").split("\t", 1) for l in f if l.strip()]
        self.img_idx = [int(r[0]) for r in rows]
        self.caps = [vocab.encode(r[1], max_len) for r in rows]

    def __len__(self):
        return len(self.caps)

    def __getitem__(self, i):
        return torch.from_numpy(self.feats[self.img_idx[i]]), torch.tensor(self.caps[i])


def build_loaders(args):
    vocab = Vocab.from_captions(os.path.join(args.data_root, "train", "captions.tsv"))
    train_set = CaptionPairs(args.data_root, "train", vocab, args.max_len)
    val_set = CaptionPairs(args.data_root, "val", vocab, args.max_len)
    # one shard per GPU
    sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.local_rank(),
                                 shuffle=True)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, sampler=sampler,
                              num_workers=args.workers, drop_last=True, pin_memory=True)
    val_loader = DataLoader(val_set, batch_size=args.eval_batch_size, shuffle=False)
    return vocab, train_loader, val_loader
