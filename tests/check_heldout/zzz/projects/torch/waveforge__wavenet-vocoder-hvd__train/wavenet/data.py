import glob
import os
import random

import numpy as np
import torch
from torch.utils.data import Dataset


def mel_basis(sr=22050, n_fft=1024, n_mels=80, fmin=0.0, fmax=8000.0):
    """Slaney-style triangular filters, no librosa needed."""
    def hz2mel(f):
        return 2595.0 * np.log10(1.0 + f / 700.0)

    def mel2hz(m):
        return 700.0 * (10 ** (m / 2595.0) - 1.0)

    bins = np.linspace(0, sr / 2, n_fft // 2 + 1)
    pts = mel2hz(np.linspace(hz2mel(fmin), hz2mel(fmax), n_mels + 2))
    fb = np.zeros((n_mels, len(bins)), dtype=np.float32)
    for m in range(n_mels):
        left, center, right = pts[m], pts[m + 1], pts[m + 2]
        fb[m] = np.maximum(0, np.minimum((bins - left) / (center - left), (right - bins) / (right - center)))
    return torch.from_numpy(fb)


def log_mel(wav, fb, n_fft=1024, hop=256):
    spec = torch.stft(wav, n_fft, hop, window=torch.hann_window(n_fft), center=True,
                      return_complex=True).abs()
    return torch.log(torch.clamp(fb @ spec, min=1e-5))


class SegmentDataset(Dataset):
    """Random fixed-length segments from 22.05 kHz .npy waveforms, mel computed on the fly."""

    def __init__(self, root, fb, segment=8192, hop=256, split="train", val_fraction=0.02):
        files = sorted(glob.glob(os.path.join(root, "*.npy")))
        n_val = max(1, int(len(files) * val_fraction))
        self.files = files[n_val:] if split == "train" else files[:n_val]
        self.fb, self.segment, self.hop = fb, segment, hop
        self.train = split == "train"

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        wav = torch.from_numpy(np.load(self.files[i]).astype(np.float32))
        if wav.numel() < self.segment:
            wav = torch.nn.functional.pad(wav, (0, self.segment - wav.numel()))
        start = random.randint(0, wav.numel() - self.segment) if self.train else 0
        wav = wav[start:start + self.segment]
        mel = log_mel(wav, self.fb, hop=self.hop)
        return wav, mel
