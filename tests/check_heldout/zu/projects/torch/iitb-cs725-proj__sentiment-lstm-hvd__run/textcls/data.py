import torch
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd

from .vocab import Vocab


def read_tsv(path):
    labels, texts = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            label, text = line.rstrip("\n").split("\t", 1)
            labels.append(int(label))
            texts.append(text)
    return labels, texts


def make_loaders(train_path, dev_path, batch_size, max_len):
    y_tr, x_tr = read_tsv(train_path)
    y_dev, x_dev = read_tsv(dev_path)
    vocab = Vocab(x_tr)
    enc = lambda xs: torch.tensor([vocab.encode(t, max_len) for t in xs])
    train_ds = TensorDataset(enc(x_tr), torch.tensor(y_tr))
    dev_ds = TensorDataset(enc(x_dev), torch.tensor(y_dev))
    tr_sampler = DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.rank())
    dev_sampler = DistributedSampler(dev_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    return (vocab,
            DataLoader(train_ds, batch_size=batch_size, sampler=tr_sampler),
            DataLoader(dev_ds, batch_size=batch_size, sampler=dev_sampler),
            tr_sampler)
