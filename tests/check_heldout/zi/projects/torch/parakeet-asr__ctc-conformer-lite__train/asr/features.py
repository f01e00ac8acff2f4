import math

import torch


def mel_filterbank(n_fft, n_mels, sample_rate):
    def hz_to_mel(f):
        return 2595.0 * math.log10(1.0 + f / 700.0)

    mels = torch.linspace(hz_to_mel(0.0), hz_to_mel(sample_rate / 2), n_mels + 2)
    hz = 700.0 * (10 ** (mels / 2595.0) - 1.0)
    bins = torch.floor((n_fft + 1) * hz / sample_rate).long()
    fb = torch.zeros(n_mels, n_fft // 2 + 1)
    for m in range(1, n_mels + 1):
        lo, c, hi = bins[m - 1].item(), bins[m].item(), bins[m + 1].item()
        for k in range(lo, c):
            fb[m - 1, k] = (k - lo) / max(c - lo, 1)
        for k in range(c, hi):
            fb[m - 1, k] = (hi - k) / max(hi - c, 1)
    return fb


class LogMel:
    def __init__(self, sample_rate=16000, n_fft=400, hop=160, n_mels=80):
        self.n_fft, self.hop = n_fft, hop
        self.window = torch.hann_window(n_fft)
        self.fb = mel_filterbank(n_fft, n_mels, sample_rate)

    def __call__(self, wav):
        spec = torch.stft(wav, self.n_fft, self.hop, window=self.window, return_complex=True).abs() ** 2
        mel = torch.log(self.fb @ spec + 1e-6).T            # frames, n_mels
        return (mel - mel.mean(0)) / (mel.std(0) + 1e-5)
