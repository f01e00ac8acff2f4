import numpy as np
import pandas as pd
import torch
from torch.utils.data import DataLoader, TensorDataset


class TabularPreprocessor:
    """quantile-free version: standard scaling for numeric cols, ordinal codes for categoricals"""

    def __init__(self, categorical, target):
        self.categorical = list(categorical)
        self.target = target
        self.means = {}
        self.stds = {}
        self.vocab = {}

    def fit(self, df):
        self.numeric = [c for c in df.columns if c not in self.categorical and c != self.target]
        for c in self.numeric:
            self.means[c] = float(df[c].mean())
            self.stds[c] = float(df[c].std()) + 1e-6
        for c in self.categorical:
            cats = sorted(df[c].astype(str).unique().tolist())
            self.vocab[c] = {v: i + 1 for i, v in enumerate(cats)}  # 0 = unknown
        return self

    def cardinalities(self):
        return [len(self.vocab[c]) + 1 for c in self.categorical]

    def transform(self, df):
        x_num = np.stack([(df[c].values - self.means[c]) / self.stds[c] for c in self.numeric], 1)
        x_cat = np.stack([df[c].astype(str).map(self.vocab[c]).fillna(0).values for c in self.categorical], 1)
        y = df[self.target].values.astype(np.float32)
        return x_num.astype(np.float32), x_cat.astype(np.int64), y


def split_frame(df, valid_frac, seed):
    rng = np.random.RandomState(seed)
    idx = rng.permutation(len(df))
    n_val = int(len(df) * valid_frac)
    return df.iloc[idx[n_val:]].reset_index(drop=True), df.iloc[idx[:n_val]].reset_index(drop=True)


def build_loaders(df, cfg, rank, world):
    dcfg, tcfg = cfg["data"], cfg["train"]
    train_df, valid_df = split_frame(df, dcfg["valid_frac"], dcfg["seed"])
    # every worker fits on the same full train frame -> identical statistics everywhere
    prep = TabularPreprocessor(dcfg["categorical"], dcfg["target"]).fit(train_df)

    tr = [torch.from_numpy(a) for a in prep.transform(train_df)]
    va = [torch.from_numpy(a) for a in prep.transform(valid_df)]

    # contiguous block per worker; remainder dropped so all workers run the same number of steps
    per_rank = len(tr[0]) // world
    sl = slice(rank * per_rank, (rank + 1) * per_rank)
    train_ds = TensorDataset(tr[0][sl], tr[1][sl], tr[2][sl])
    # validation: strided slice, gathered back before AUC
    valid_ds = TensorDataset(va[0][rank::world], va[1][rank::world], va[2][rank::world])

    g = torch.Generator()
    g.manual_seed(dcfg["seed"] + rank)
    train_loader = DataLoader(train_ds, batch_size=tcfg["batch_size"], shuffle=True, generator=g,
                              drop_last=True, num_workers=tcfg["num_workers"])
    valid_loader = DataLoader(valid_ds, batch_size=1024, shuffle=False)
    return train_loader, valid_loader, prep
