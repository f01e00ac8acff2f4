import numpy as np
import pandas as pd

SYMBOLIC = ["protocol_type", "service", "flag"]


class Prep:
    """one-hot for the 3 symbolic columns, robust scaling for the rest"""

    def fit(self, df, label_col):
        self.label_col = label_col
        self.levels = {c: sorted(df[c].astype(str).unique()) for c in SYMBOLIC}
        self.num = [c for c in df.columns if c not in SYMBOLIC + [label_col]]
        self.med = df[self.num].median()
        iqr = df[self.num].quantile(0.75) - df[self.num].quantile(0.25)
        self.iqr = iqr.replace(0, 1.0)
        self.classes = sorted(df[label_col].unique())
        return self

    def transform(self, df):
        parts = [((df[self.num] - self.med) / self.iqr).clip(-10, 10).values]
        for c in SYMBOLIC:
            parts.append(np.stack([(df[c].astype(str) == lv).values for lv in self.levels[c]], 1))
        X = np.concatenate(parts, 1).astype("float32")
        y = df[self.label_col].map({c: i for i, c in enumerate(self.classes)}).fillna(0).astype("int64").values
        return X, y
