import json
import os

import numpy as np


class ColumnStore:
    """A directory of row groups, each `rg-XXXX/` with `_meta.json` and one `<column>.npy` per column."""

    def __init__(self, root):
        self.root = root
        self.groups = sorted(d for d in os.listdir(root) if d.startswith("rg-"))

    def meta(self, group):
        with open(os.path.join(self.root, group, "_meta.json")) as f:
            return json.load(f)

    def num_rows(self, groups=None):
        return sum(self.meta(g)["num_rows"] for g in (groups or self.groups))

    def read(self, group, columns):
        base = os.path.join(self.root, group)
        return {c: np.load(os.path.join(base, c + ".npy"), mmap_mode="r") for c in columns}
