import torch
from torch import nn


class ConvSubsample(nn.Module):
    """Two stride-2 convolutions: 4x fewer frames."""

    def __init__(self, n_mels, d_model):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(1, 32, 3, 2, 1), nn.SiLU(), nn.Conv2d(32, 32, 3, 2, 1), nn.SiLU())
        self.out = nn.Linear(32 * ((n_mels + 3) // 4), d_model)

    def forward(self, x, lens):
        x = self.conv(x.unsqueeze(1))
        b, c, t, f = x.shape
        x = self.out(x.transpose(1, 2).reshape(b, t, c * f))
        lens = ((lens + 1) // 2 + 1) // 2
        return x, lens.clamp(max=t)


class CTCEncoder(nn.Module):
    def __init__(self, n_mels=80, vocab=29, d_model=256, heads=4, layers=6, dropout=0.1):
        super().__init__()
        self.subsample = ConvSubsample(n_mels, d_model)
        layer = nn.TransformerEncoderLayer(d_model, heads, 4 * d_model, dropout, batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers)
        self.head = nn.Linear(d_model, vocab)

    def forward(self, feats, lens):
        x, lens = self.subsample(feats, lens)
        pad = torch.arange(x.shape[1], device=x.device)[None] >= lens[:, None].to(x.device)
        x = self.encoder(x, src_key_padding_mask=pad)
        return self.head(x).log_softmax(-1), lens
