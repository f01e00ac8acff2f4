"""WaveGAN-style 1-D generator and critic for 3-component seismograms."""
import torch
import torch.nn as nn


class PhaseShuffle(nn.Module):
    """Randomly shift activations by -n..n samples (reflect padding), per example."""

    def __init__(self, n):
        super().__init__()
        self.n = n

    def forward(self, x):
        if self.n == 0 or not self.training:
            return x
        shifts = torch.randint(-self.n, self.n + 1, (x.shape[0],), device=x.device)
        out = torch.empty_like(x)
        for i, k in enumerate(shifts.tolist()):
            xp = nn.functional.pad(x[i:i + 1], (self.n, self.n), mode="reflect")
            out[i] = xp[0, :, self.n - k:self.n - k + x.shape[-1]]
        return out


class Generator(nn.Module):
    def __init__(self, latent_dim=100, channels=3, d=32):
        super().__init__()
        self.d = d
        self.fc = nn.Linear(latent_dim, 16 * d * 16)
        ups = []
        cin = 16 * d
        for cout in (8 * d, 4 * d, 2 * d, d):
            ups += [nn.ConvTranspose1d(cin, cout, 25, stride=4, padding=11, output_padding=1),
                    nn.ReLU(True)]
            cin = cout
        ups += [nn.ConvTranspose1d(cin, channels, 25, stride=4, padding=11, output_padding=1),
                nn.Tanh()]
        self.net = nn.Sequential(*ups)

    def forward(self, z):
        h = torch.relu(self.fc(z)).view(z.shape[0], 16 * self.d, 16)
        return self.net(h)


class Critic(nn.Module):
    def __init__(self, channels=3, d=32, shuffle=2):
        super().__init__()
        layers, cin = [], channels
        for cout in (d, 2 * d, 4 * d, 8 * d, 16 * d):
            layers += [nn.Conv1d(cin, cout, 25, stride=4, padding=11), nn.LeakyReLU(0.2, True),
                       PhaseShuffle(shuffle)]
            cin = cout
        self.net = nn.Sequential(*layers[:-1])
        self.fc = nn.Linear(16 * d * 16, 1)

    def forward(self, x):
        return self.fc(self.net(x).flatten(1))
