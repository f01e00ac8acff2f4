import numpy as np
import torch
import torch.nn as nn


class LogMelSpec(nn.Module):
    def __init__(self, sr=44100, n_fft=2048, hop=882, n_mels=40):
        super().__init__()
        self.n_fft, self.hop = n_fft, hop
        top = 2595.0 * np.log10(1.0 + (sr / 2) / 700.0)
        pts = 700.0 * (10 ** (np.linspace(0, top, n_mels + 2) / 2595.0) - 1.0)
        f = np.linspace(0, sr / 2, n_fft // 2 + 1)
        fb = np.maximum(0, np.minimum((f[None] - pts[:-2, None]) / np.diff(pts)[:-1, None],
                                      (pts[2:, None] - f[None]) / np.diff(pts)[1:, None]))
        self.register_buffer("fb", torch.tensor(fb, dtype=torch.float32))
        self.register_buffer("win", torch.hann_window(n_fft))

    def forward(self, wav):                     # (B, T) -> (B, frames, n_mels)
        s = torch.stft(wav, self.n_fft, self.hop, window=self.win, return_complex=True).abs() ** 2
        return torch.log(torch.einsum("mf,bft->btm", self.fb, s) + 1e-8)
