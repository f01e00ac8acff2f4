import numpy as np
import pandas as pd
import torch
from sklearn.preprocessing import StandardScaler, OrdinalEncoder
from torch.utils.data import DataLoader, TensorDataset


def load_frame(csv, target):
    df = pd.read_csv(csv)
    cat_cols = [c for c in df.columns if not pd.api.types.is_numeric_dtype(df[c]) and c != target]
    num_cols = [c for c in df.columns if c not in cat_cols and c != target]
    return df, num_cols, cat_cols


def split(df, seed=0, frac=(0.7, 0.15)):
    idx = np.random.RandomState(seed).permutation(len(df))
    a, b = int(frac[0] * len(df)), int((frac[0] + frac[1]) * len(df))
    return df.iloc[idx[:a]], df.iloc[idx[a:b]], df.iloc[idx[b:]]


def to_tensors(df, num_cols, cat_cols, target, scaler, enc):
    xs = [scaler.transform(df[num_cols].values)]
    if cat_cols:
        xs.append(enc.transform(df[cat_cols].astype(str).values))
    X = np.concatenate(xs, 1).astype(np.float32)
    return torch.from_numpy(X), torch.from_numpy(df[target].values.astype(np.float32))


def shard_loaders(df, num_cols, cat_cols, target, rank, size, batch_size, seed=0):
    tr, va, te = split(df, seed)
    # each worker keeps its own slice of the training rows
    tr = tr.iloc[rank::size]
    scaler = StandardScaler().fit(tr[num_cols].values)
    enc = OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1)
    if cat_cols:
        enc.fit(tr[cat_cols].astype(str).values)
    Xtr, ytr = to_tensors(tr, num_cols, cat_cols, target, scaler, enc)
    Xva, yva = to_tensors(va, num_cols, cat_cols, target, scaler, enc)
    train = DataLoader(TensorDataset(Xtr, ytr), batch_size=batch_size, shuffle=True, drop_last=True)
    valid = DataLoader(TensorDataset(Xva, yva), batch_size=2048)
    return train, valid, Xtr.shape[1]
