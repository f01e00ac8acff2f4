import os

import numpy as np
import torch
from torch.utils.data import Dataset


def _mel_fb(sr, n_fft, n_mels):
    mel = np.linspace(0, 2595 * np.log10(1 + sr / 2 / 700), n_mels + 2)
    hz = 700 * (10 ** (mel / 2595) - 1)
    bins = np.floor((n_fft + 1) * hz / sr).astype(int)
    fb = np.zeros((n_mels, n_fft // 2 + 1), dtype=np.float32)
    for m in range(1, n_mels + 1):
        lo, c, hi = bins[m - 1], bins[m], bins[m + 1]
        fb[m - 1, lo:c] = (np.arange(lo, c) - lo) / max(c - lo, 1)
        fb[m - 1, c:hi] = (hi - np.arange(c, hi)) / max(hi - c, 1)
    return torch.from_numpy(fb)


class DrumHits(Dataset):
    """One-shots listed in <root>/<split>.txt (one .npy per line), 22.05 kHz, cut/padded to 64 frames."""

    def __init__(self, root, split, sr=22050, n_fft=1024, hop=256, n_mels=64, frames=64):
        with open(os.path.join(root, f"{split}.txt")) as f:
            self.paths = [os.path.join(root, line.strip()) for line in f if line.strip()]
        self.n_fft, self.hop, self.frames = n_fft, hop, frames
        self.length = hop * (frames - 1)
        self.fb = _mel_fb(sr, n_fft, n_mels)
        self.window = torch.hann_window(n_fft)

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, i):
        wav = torch.from_numpy(np.load(self.paths[i]).astype(np.float32))[: self.length]
        wav = torch.nn.functional.pad(wav, (0, self.length - wav.numel()))
        spec = torch.stft(wav, self.n_fft, self.hop, window=self.window, return_complex=True).abs()
        return torch.log(self.fb @ spec + 1e-5).unsqueeze(0)
