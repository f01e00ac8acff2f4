import json
import os

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class FbankManifest(Dataset):
    """One JSON line per utterance: {"feats": "<path>.npy", "tokens": [..]}."""

    def __init__(self, manifest):
        root = os.path.dirname(manifest)
        with open(manifest) as f:
            self.items = [json.loads(line) for line in f if line.strip()]
        for it in self.items:
            it["feats"] = os.path.join(root, it["feats"])

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        it = self.items[i]
        feats = torch.from_numpy(np.load(it["feats"])).float()
        return feats, torch.tensor(it["tokens"], dtype=torch.long)


def collate(batch):
    feats, toks = zip(*batch)
    flen = torch.tensor([f.shape[0] for f in feats])
    tlen = torch.tensor([t.shape[0] for t in toks])
    x = torch.nn.utils.rnn.pad_sequence(feats, batch_first=True)
    y = torch.cat(toks)
    return x, flen, y, tlen


def build_loader(cfg, split, num_replicas, rank):
    dcfg = cfg["data"]
    name = dcfg["train_manifest"] if split == "train" else dcfg["valid_manifest"]
    ds = FbankManifest(os.path.join(dcfg["manifest_dir"], name))
    sampler = DistributedSampler(ds, num_replicas=num_replicas, rank=rank, shuffle=(split == "train"))
    loader = DataLoader(ds, batch_size=dcfg["batch_size"], sampler=sampler, collate_fn=collate,
                        num_workers=dcfg.get("num_workers", 0), drop_last=(split == "train"))
    return loader, sampler
