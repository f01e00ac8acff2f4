import numpy as np
import pandas as pd


def load_sales(path):
    """Long table (store_item, date, units, price, promo) -> dense [series, days, features]."""
    df = pd.read_csv(path, parse_dates=["date"]).sort_values(["store_item", "date"])
    series = df["store_item"].unique()
    days = df["date"].nunique()
    feats = df[["units", "price", "promo"]].to_numpy(np.float32).reshape(len(series), days, 3)
    scale = feats[:, :, 0].mean(1, keepdims=True) + 1.0
    feats[:, :, 0] /= scale
    return feats, scale.astype(np.float32)


def make_windows(feats, history, horizon, stride, last_day):
    """All (history, horizon) windows that end on or before `last_day`."""
    xs, ys = [], []
    for end in range(history, last_day - horizon + 1, stride):
        xs.append(feats[:, end - history:end])
        ys.append(feats[:, end:end + horizon, 0])
    x = np.concatenate(xs, 0)
    y = np.concatenate(ys, 0)
    return x, y
