import os
import urllib.request

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, Subset
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd

from .encoding import kmer_tokens, kmer_vocab


def fetch_dataset(url, cache_dir):
    """Download the npz once per node (local rank 0), the other local ranks wait."""
    path = os.path.join(cache_dir, os.path.basename(url))
    if hvd.local_rank() == 0 and not os.path.exists(path):
        os.makedirs(cache_dir, exist_ok=True)
        tmp = path + ".part"
        urllib.request.urlretrieve(url, tmp)
        os.replace(tmp, path)
    hvd.barrier()
    return path


class KmerWindows(Dataset):
    def __init__(self, seqs, labels, k):
        vocab = kmer_vocab(k)
        self.tokens = [torch.from_numpy(kmer_tokens(s, k, vocab)) for s in seqs]
        self.labels = torch.as_tensor(labels, dtype=torch.float32)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return self.tokens[i], self.labels[i]


def make_loaders(path, k, batch_size, seed):
    blob = np.load(path, allow_pickle=False)
    train = KmerWindows(blob["train_seq"].tolist(), blob["train_y"], k)
    val = KmerWindows(blob["val_seq"].tolist(), blob["val_y"], k)
    sampler = DistributedSampler(train, num_replicas=hvd.size(), rank=hvd.rank(),
                                 shuffle=True, seed=seed)
    train_loader = DataLoader(train, batch_size=batch_size, sampler=sampler, drop_last=True)
    # validation: every rank scores its own strided slice, scores are gathered afterwards
    val_part = Subset(val, list(range(hvd.rank(), len(val), hvd.size())))
    val_loader = DataLoader(val_part, batch_size=4 * batch_size, shuffle=False)
    return train_loader, val_loader
