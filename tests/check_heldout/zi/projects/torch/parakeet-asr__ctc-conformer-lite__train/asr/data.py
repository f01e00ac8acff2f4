import json
import wave

import numpy as np
import torch
from torch.utils.data import Dataset

from .features import LogMel
from .text import encode


def read_wav(path):
    with wave.open(path, "rb") as w:
        pcm = w.readframes(w.getnframes())
    return np.frombuffer(pcm, dtype=np.int16).astype(np.float32) / 32768.0


class ManifestDataset(Dataset):
    """NeMo-style JSON-lines manifest: {"audio_filepath", "duration", "text"} per line."""

    def __init__(self, manifest, max_duration=16.0, sort_by_duration=False):
        with open(manifest) as f:
            items = [json.loads(line) for line in f if line.strip()]
        self.items = [it for it in items if it["duration"] <= max_duration]
        if sort_by_duration:  # SortaGrad: shortest first on the first epoch
            self.items.sort(key=lambda it: it["duration"])
        self.featurizer = LogMel()

    def __len__(self):
        return len(self.items)

    def __getitem__(self, idx):
        it = self.items[idx]
        feats = self.featurizer(torch.from_numpy(read_wav(it["audio_filepath"])))
        return feats, torch.tensor(encode(it["text"]), dtype=torch.long)


def collate(batch):
    feats, labels = zip(*batch)
    feat_lens = torch.tensor([f.shape[0] for f in feats])
    label_lens = torch.tensor([len(l) for l in labels])
    feats = torch.nn.utils.rnn.pad_sequence(feats, batch_first=True)
    labels = torch.nn.utils.rnn.pad_sequence(labels, batch_first=True)
    return feats, feat_lens, labels, label_lens
