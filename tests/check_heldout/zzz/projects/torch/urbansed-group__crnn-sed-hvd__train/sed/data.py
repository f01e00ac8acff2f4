import csv
import os

import numpy as np
import torch
from torch.utils.data import Dataset

from . import CLASSES


def read_annotations(root, split):
    """<root>/<split>.csv rows: filename,onset,offset,event_label"""
    events = {}
    with open(os.path.join(root, f"{split}.csv")) as f:
        for row in csv.DictReader(f):
            events.setdefault(row["filename"], []).append(
                (float(row["onset"]), float(row["offset"]), CLASSES.index(row["event_label"])))
    return events


def frame_targets(events, n_frames, frame_hop_s, n_classes=len(CLASSES)):
    y = np.zeros((n_frames, n_classes), dtype=np.float32)
    for onset, offset, k in events:
        y[int(onset / frame_hop_s):int(np.ceil(offset / frame_hop_s)), k] = 1.0
    return y


class LongFileWindows(Dataset):
    """Cuts each (long) soundscape into fixed windows with hop; keeps file id for clip-level pooling."""

    def __init__(self, root, split, files, sr=44100, win_s=10.0, hop_s=5.0, frame_hop=882):
        self.events = read_annotations(root, split)
        self.root, self.split, self.sr = root, split, sr
        self.win, self.hop, self.frame_hop = int(win_s * sr), int(hop_s * sr), frame_hop
        self.items = []
        for fid, name in enumerate(files):
            n = np.load(os.path.join(root, split, name + ".npy"), mmap_mode="r").shape[0]
            starts = range(0, max(n - self.win, 0) + 1, self.hop)
            self.items += [(fid, name, s) for s in starts]
        self.files = list(files)

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        fid, name, start = self.items[i]
        wav = np.load(os.path.join(self.root, self.split, name + ".npy"), mmap_mode="r")
        x = np.zeros(self.win, dtype=np.float32)
        seg = wav[start:start + self.win]
        x[:len(seg)] = seg
        n_frames = self.win // self.frame_hop + 1
        shifted = [(on - start / self.sr, off - start / self.sr, k) for on, off, k in self.events.get(name, [])]
        shifted = [(max(on, 0.0), off, k) for on, off, k in shifted if off > 0 and on < self.win / self.sr]
        y = frame_targets(shifted, n_frames, self.frame_hop / self.sr)
        return torch.from_numpy(x), torch.from_numpy(y), fid
