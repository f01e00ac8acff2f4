import torch
import torch.nn.functional as F


def stft_mag(x, n_fft, hop):
    return torch.stft(x, n_fft, hop, window=torch.hann_window(n_fft, device=x.device),
                      return_complex=True).abs()


def multi_resolution_stft_loss(y_hat, y, sizes=((512, 128), (1024, 256), (2048, 512))):
    loss = 0.0
    for n_fft, hop in sizes:
        a, b = stft_mag(y_hat, n_fft, hop), stft_mag(y, n_fft, hop)
        sc = torch.norm(b - a, p="fro") / torch.norm(b, p="fro").clamp(min=1e-7)
        mag = F.l1_loss(torch.log(a.clamp(min=1e-7)), torch.log(b.clamp(min=1e-7)))
        loss = loss + sc + mag
    return loss / len(sizes)


def d_hinge(real, fake):
    return F.relu(1 - real).mean() + F.relu(1 + fake).mean()


def g_hinge(fake):
    return -fake.mean()
