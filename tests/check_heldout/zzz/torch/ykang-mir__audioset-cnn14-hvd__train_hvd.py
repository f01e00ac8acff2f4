# AudioSet tagging with a CNN14-style network (PANNs recipe, trimmed down), Horovod version.
# Data: waveforms packed by scripts/pack_waveforms.py into <workspace>/{split}_wav.npy (int16, N x 320000)
# and <workspace>/{split}_target.npy (bool, N x 527).
#
#   horovodrun -np 8 python train_hvd.py --workspace /scratch/audioset --batch_size 32
import argparse
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

parser = argparse.ArgumentParser()
parser.add_argument('--workspace', type=str, required=True)
parser.add_argument('--batch_size', type=int, default=32)
parser.add_argument('--learning_rate', type=float, default=1e-3)
parser.add_argument('--epochs', type=int, default=30)
parser.add_argument('--seed', type=int, default=42)
parser.add_argument('--sample_rate', type=int, default=32000)
parser.add_argument('--window_size', type=int, default=1024)
parser.add_argument('--hop_size', type=int, default=320)
parser.add_argument('--mel_bins', type=int, default=64)
parser.add_argument('--eval_every', type=int, default=1)
args = parser.parse_args()

hvd.init()
torch.manual_seed(args.seed + hvd.rank())
np.random.seed(args.seed + hvd.rank())
if torch.cuda.is_available():
    torch.cuda.set_device(hvd.local_rank())
device = 'cuda' if torch.cuda.is_available() else 'cpu'


class PackedWaveforms(Dataset):
    def __init__(self, workspace, split):
        self.wav = np.load(os.path.join(workspace, f'{split}_wav.npy'), mmap_mode='r')
        self.target = np.load(os.path.join(workspace, f'{split}_target.npy'), mmap_mode='r')

    def __len__(self):
        return len(self.wav)

    def __getitem__(self, i):
        x = self.wav[i].astype(np.float32) / 32768.0
        return torch.from_numpy(x), torch.from_numpy(self.target[i].astype(np.float32))


class LogMel(nn.Module):
    def __init__(self, sr, n_fft, hop, n_mels, fmin=50, fmax=14000):
        super().__init__()
        self.n_fft, self.hop = n_fft, hop
        mel = lambda f: 2595 * np.log10(1 + f / 700)
        inv = lambda m: 700 * (10 ** (m / 2595) - 1)
        edges = inv(np.linspace(mel(fmin), mel(fmax), n_mels + 2))
        freqs = np.fft.rfftfreq(n_fft, 1 / sr)
        fb = np.stack([np.clip(np.minimum((freqs - edges[i]) / (edges[i + 1] - edges[i]),
                                          (edges[i + 2] - freqs) / (edges[i + 2] - edges[i + 1])), 0, None)
                       for i in range(n_mels)])
        self.register_buffer('fb', torch.tensor(fb, dtype=torch.float32))
        self.register_buffer('win', torch.hann_window(n_fft))

    def forward(self, x):
        s = torch.stft(x, self.n_fft, self.hop, window=self.win, return_complex=True).abs().pow(2)
        return 10 * torch.log10(torch.clamp(self.fb @ s, min=1e-10)).unsqueeze(1)


def block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(),
                         nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(),
                         nn.AvgPool2d(2))


class Cnn14(nn.Module):
    def __init__(self, classes=527):
        super().__init__()
        self.logmel = LogMel(args.sample_rate, args.window_size, args.hop_size, args.mel_bins)
        self.bn0 = nn.BatchNorm2d(1)
        self.blocks = nn.Sequential(block(1, 64), block(64, 128), block(128, 256), block(256, 512))
        self.fc1 = nn.Linear(512, 512)
        self.fc_out = nn.Linear(512, classes)

    def forward(self, wav):
        x = self.bn0(self.logmel(wav))
        x = self.blocks(x).mean(dim=2)            # over mel bins
        x = x.amax(dim=2) + x.mean(dim=2)         # over time
        x = F.dropout(F.relu(self.fc1(x)), 0.5, self.training)
        return self.fc_out(x)


def mean_average_precision(target, output):
    aps = []
    for k in range(target.shape[1]):
        if target[:, k].sum() == 0:
            continue
        order = np.argsort(-output[:, k])
        hits = target[order, k]
        prec = np.cumsum(hits) / np.arange(1, len(hits) + 1)
        aps.append((prec * hits).sum() / hits.sum())
    return float(np.mean(aps))


train_set = PackedWaveforms(args.workspace, 'balanced_train')
eval_set = PackedWaveforms(args.workspace, 'eval')
train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank(),
                                   shuffle=True, seed=args.seed + hvd.rank())
eval_sampler = DistributedSampler(eval_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
train_loader = DataLoader(train_set, batch_size=args.batch_size, sampler=train_sampler, num_workers=8,
                          drop_last=True)
eval_loader = DataLoader(eval_set, batch_size=args.batch_size, sampler=eval_sampler, num_workers=8)

model = Cnn14().to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=args.learning_rate * hvd.size(), betas=(0.9, 0.999),
                             eps=1e-8, amsgrad=True)
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
hvd.broadcast_parameters(model.parameters(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)

os.makedirs(os.path.join(args.workspace, 'checkpoints'), exist_ok=True)

for epoch in range(args.epochs):
    model.train()
    train_sampler.set_epoch(epoch)
    t0 = time.time()
    for it, (wav, target) in enumerate(train_loader):
        wav, target = wav.to(device), target.to(device)
        loss = F.binary_cross_entropy_with_logits(model(wav), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if hvd.rank() == 0 and it % 200 == 0:
            print(f'epoch {epoch} iter {it} loss {loss.item():.5f}', flush=True)

    if (epoch + 1) % args.eval_every == 0:
        model.eval()
        outputs, targets = [], []
        with torch.no_grad():
            for wav, target in eval_loader:
                outputs.append(torch.sigmoid(model(wav.to(device))).cpu().numpy())
                targets.append(target.numpy())
        mAP = mean_average_precision(np.concatenate(targets), np.concatenate(outputs))
        if hvd.rank() == 0:
            print(f'epoch {epoch} eval mAP {mAP:.4f} time {time.time() - t0:.1f}s', flush=True)
            torch.save({'epoch': epoch, 'model': model.state_dict()},
                       os.path.join(args.workspace, 'checkpoints', f'cnn14_epoch{epoch}.pth'))
