#!/usr/bin/env python
"""Bank-marketing pipeline: clean -> features -> TabNet (horovod).

    horovodrun -np 4 python pipeline.py --config configs/default.yaml
"""
import argparse
import json

import numpy as np
import pandas as pd

from ktabnet import config, train_model


def clean(df):
    df = df.drop(columns=["duration"], errors="ignore")    # leaks the target
    df = df.replace("unknown", np.nan)
    for c in df.columns:
        if not pd.api.types.is_numeric_dtype(df[c]):
            df[c] = df[c].fillna("missing")
        else:
            df[c] = df[c].fillna(df[c].median())
    return df


def add_features(df):
    if "pdays" in df:
        df["was_contacted"] = (df["pdays"] != 999).astype("int32")
    if "campaign" in df:
        df["log_campaign"] = np.log1p(df["campaign"])
    return df


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="configs/default.yaml")
    ap.add_argument("--epochs", type=int, default=None)
    a = ap.parse_args()
    overrides = {"train": {"epochs": a.epochs}} if a.epochs else {}
    cfg = config.load(a.config, **overrides)

    df = add_features(clean(pd.read_csv(cfg["data"]["path"], sep=None, engine="python")))
    history = train_model(df, cfg)
    print(json.dumps({k: float(v[-1]) for k, v in history.items()}))


if __name__ == "__main__":
    main()
