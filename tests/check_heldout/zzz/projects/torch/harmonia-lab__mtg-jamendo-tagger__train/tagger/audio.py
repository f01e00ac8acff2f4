import math

import torch
import torch.nn as nn


def hz_to_mel(f):
    return 2595.0 * math.log10(1.0 + f / 700.0)


def mel_to_hz(m):
    return 700.0 * (10.0 ** (m / 2595.0) - 1.0)


def mel_filterbank(sr, n_fft, n_mels, fmin=0.0, fmax=None):
    fmax = fmax or sr / 2
    n_freqs = n_fft // 2 + 1
    freqs = torch.linspace(0, sr / 2, n_freqs)
    mels = torch.linspace(hz_to_mel(fmin), hz_to_mel(fmax), n_mels + 2)
    hz = torch.tensor([mel_to_hz(m.item()) for m in mels])
    fb = torch.zeros(n_mels, n_freqs)
    for i in range(n_mels):
        lo, mid, hi = hz[i], hz[i + 1], hz[i + 2]
        up = (freqs - lo) / (mid - lo)
        down = (hi - freqs) / (hi - mid)
        fb[i] = torch.clamp(torch.minimum(up, down), min=0.0)
    return fb


class MelFrontend(nn.Module):
    """Waveform (B, T) -> log-mel (B, 1, n_mels, frames), computed on the device."""

    def __init__(self, sr=16000, n_fft=512, hop=256, n_mels=128):
        super().__init__()
        self.n_fft, self.hop = n_fft, hop
        self.register_buffer("window", torch.hann_window(n_fft))
        self.register_buffer("fb", mel_filterbank(sr, n_fft, n_mels))

    def forward(self, wav):
        spec = torch.stft(wav, self.n_fft, self.hop, window=self.window, return_complex=True)
        power = spec.abs() ** 2
        mel = torch.matmul(self.fb, power)
        return torch.log(mel + 1e-6).unsqueeze(1)
