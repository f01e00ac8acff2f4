import glob
import os

import torch
from torch.utils.data import DataLoader, TensorDataset, RandomSampler


def _list_shards(args):
    if args.shard_dir:
        return sorted(glob.glob(os.path.join(args.shard_dir, "*.pt")))
    return ["random-%03d" % i for i in range(args.num_shards)]


def _load_shard(name, args):
    if name.startswith("random-"):
        g = torch.Generator().manual_seed(int(name.split("-")[1]))
        return torch.randint(5, args.vocab, (64, args.seq_len), generator=g)
    return torch.load(name)


def mask_tokens(ids, vocab, p=0.15, mask_id=4):
    labels = ids.clone()
    m = torch.rand(ids.shape) < p
    labels[~m] = -100
    ids = ids.clone()
    ids[m] = mask_id
    return ids, labels


def shard_loader(args, rank, world):
    """each rank reads its own subset of the shard files"""
    mine = _list_shards(args)[rank::world]
    ids = torch.cat([_load_shard(s, args) for s in mine])
    inp, lab = mask_tokens(ids, args.vocab)
    ds = TensorDataset(inp, lab)
    return DataLoader(ds, sampler=RandomSampler(ds), batch_size=args.train_batch_size,
                      drop_last=True)
