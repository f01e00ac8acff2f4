import numpy as np
import pandas as pd
import torch
from torch.utils.data import Dataset, DataLoader
from torch.utils.data.distributed import DistributedSampler
from sklearn.preprocessing import LabelEncoder, QuantileTransformer


class TabDataset(Dataset):
    def __init__(self, X_num, X_cat, y):
        self.X_num = torch.as_tensor(X_num, dtype=torch.float32)
        self.X_cat = torch.as_tensor(X_cat, dtype=torch.long)
        self.y = torch.as_tensor(y, dtype=torch.float32)

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.X_num[i], self.X_cat[i], self.y[i]


def preprocess(df, cat_cols, target, fold, n_folds, seed):
    df = df.copy()
    rng = np.random.RandomState(seed)
    df["kfold"] = rng.randint(0, n_folds, len(df))
    num_cols = [c for c in df.columns if c not in cat_cols + [target, "kfold"]]
    cards = []
    for c in cat_cols:
        le = LabelEncoder()
        df[c] = le.fit_transform(df[c].astype(str).fillna("NA"))
        cards.append(len(le.classes_))
    trn = df[df.kfold != fold]
    qt = QuantileTransformer(n_quantiles=min(1000, len(trn)), output_distribution="normal", random_state=seed)
    qt.fit(trn[num_cols].values)
    df[num_cols] = qt.transform(df[num_cols].values)
    trn, val = df[df.kfold != fold], df[df.kfold == fold]
    return trn, val, num_cols, cards


def make_loaders(args, trn, val, num_cols, cat_cols, rank, world_size):
    train_ds = TabDataset(trn[num_cols].values, trn[cat_cols].values, trn[args.target].values)
    valid_ds = TabDataset(val[num_cols].values, val[cat_cols].values, val[args.target].values)

    train_sampler = DistributedSampler(train_ds, num_replicas=world_size, rank=rank, shuffle=True,
                                       seed=args.seed)
    valid_sampler = DistributedSampler(valid_ds, num_replicas=world_size, rank=rank, shuffle=False)

    train_loader = DataLoader(train_ds, batch_size=args.batch_size, shuffle=True, drop_last=True,
                              num_workers=2, pin_memory=True)
    valid_loader = DataLoader(valid_ds, batch_size=args.batch_size * 2, sampler=valid_sampler)
    return train_loader, valid_loader, train_sampler
