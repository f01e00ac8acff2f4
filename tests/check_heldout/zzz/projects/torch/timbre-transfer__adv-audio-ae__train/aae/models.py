import torch
import torch.nn as nn


class Encoder(nn.Module):
    def __init__(self, channels, latent):
        super().__init__()
        layers, cin = [], 1
        for c in channels:
            layers += [nn.Conv1d(cin, c, 8, stride=4, padding=2), nn.LeakyReLU(0.2)]
            cin = c
        self.net = nn.Sequential(*layers, nn.Conv1d(cin, latent, 3, padding=1))

    def forward(self, wav):
        return torch.tanh(self.net(wav.unsqueeze(1)))


class Decoder(nn.Module):
    def __init__(self, channels, latent):
        super().__init__()
        layers, cin = [nn.Conv1d(latent, channels[-1], 3, padding=1)], channels[-1]
        for c in reversed(channels[:-1]):
            layers += [nn.LeakyReLU(0.2), nn.ConvTranspose1d(cin, c, 8, stride=4, padding=2)]
            cin = c
        layers += [nn.LeakyReLU(0.2), nn.ConvTranspose1d(cin, 1, 8, stride=4, padding=2), nn.Tanh()]
        self.net = nn.Sequential(*layers)

    def forward(self, z):
        return self.net(z).squeeze(1)


class AutoEncoder(nn.Module):
    def __init__(self, channels, latent):
        super().__init__()
        self.encoder = Encoder(channels, latent)
        self.decoder = Decoder(channels, latent)

    def forward(self, wav):
        return self.decoder(self.encoder(wav))


class WaveDiscriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv1d(1, 16, 15, padding=7), nn.LeakyReLU(0.2),
            nn.Conv1d(16, 64, 41, stride=4, padding=20, groups=4), nn.LeakyReLU(0.2),
            nn.Conv1d(64, 256, 41, stride=4, padding=20, groups=16), nn.LeakyReLU(0.2),
            nn.Conv1d(256, 1, 3, padding=1))

    def forward(self, wav):
        return self.net(wav.unsqueeze(1))
