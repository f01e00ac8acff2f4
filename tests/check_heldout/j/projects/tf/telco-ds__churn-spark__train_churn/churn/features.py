import glob
import os

import numpy as np
import pandas as pd

CATEGORICAL = ["contract", "payment_method", "internet_service", "region"]
NUMERIC = ["tenure_months", "monthly_charges", "total_charges", "support_calls", "dropped_calls_90d"]
LABEL = "churned"


def part_files(path):
    files = sorted(glob.glob(os.path.join(path, "part-*.parquet")))
    if not files:
        raise FileNotFoundError(f"no parquet parts under {path}")
    return files


def load_partition(path, rank, size):
    """Rows of the part files ``rank, rank + size, ...``: a disjoint share of the table per worker."""
    files = part_files(path)[rank::size]
    return pd.concat([pd.read_parquet(f) for f in files], ignore_index=True)


def count_rows(path):
    import pyarrow.parquet as pq
    return sum(pq.ParquetFile(f).metadata.num_rows for f in part_files(path))


def to_arrays(df, vocab):
    num = df[NUMERIC].fillna(0.0).to_numpy(np.float32)
    num = np.log1p(np.clip(num, 0, None))
    cats = [df[c].map(vocab[c]).fillna(0).to_numpy(np.int32) for c in CATEGORICAL]
    return {"numeric": num, **{c: v for c, v in zip(CATEGORICAL, cats)}}, df[LABEL].to_numpy(np.float32)


def build_vocab(df, min_count=20):
    """Category -> id (0 is kept for unseen values); run once per snapshot by the feature job."""
    vocab = {}
    for col in CATEGORICAL:
        counts = df[col].value_counts()
        kept = sorted(counts[counts >= min_count].index.tolist())
        vocab[col] = {value: i + 1 for i, value in enumerate(kept)}
    return vocab
