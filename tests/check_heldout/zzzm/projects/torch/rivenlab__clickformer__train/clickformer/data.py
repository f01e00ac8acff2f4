import torch
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

import horovod.torch as hvd


def _random_split(n, seq_len, vocab, n_classes, seed):
    g = torch.Generator().manual_seed(seed)
    x = torch.randint(1, vocab, (n, seq_len), generator=g)
    y = torch.randint(0, n_classes, (n,), generator=g)
    return TensorDataset(x, y)


def build_loaders(cfg):
    train_ds = _random_split(cfg.n_train, cfg.seq_len, cfg.vocab_size, cfg.n_classes, cfg.seed)
    val_ds = _random_split(cfg.n_val, cfg.seq_len, cfg.vocab_size, cfg.n_classes, cfg.seed + 1)

    train_sampler = DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.rank(),
                                       shuffle=True, seed=cfg.seed)
    val_sampler = DistributedSampler(val_ds, num_replicas=hvd.size(), rank=hvd.rank(),
                                     shuffle=False)
    train_loader = DataLoader(train_ds, batch_size=cfg.batch_size, sampler=train_sampler,
                              num_workers=cfg.workers, drop_last=True)
    val_loader = DataLoader(val_ds, batch_size=cfg.batch_size, sampler=val_sampler,
                            num_workers=cfg.workers)
    return train_loader, val_loader, train_sampler
