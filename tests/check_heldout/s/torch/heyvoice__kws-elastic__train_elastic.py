"""Keyword spotting (12 commands) on pre-computed log-mel features, elastic Horovod.

Runs on the preemptible pool:
    horovodrun -np 8 --min-np 4 --max-np 16 --host-discovery-script ./discover_hosts.sh \
        python train_elastic.py --data /mnt/kws/feats --epochs 30
"""
import argparse
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd

LABELS = ["yes", "no", "up", "down", "left", "right", "on", "off", "stop", "go", "_silence_", "_unknown_"]

parser = argparse.ArgumentParser()
parser.add_argument("--data", default="/mnt/kws/feats")
parser.add_argument("--epochs", type=int, default=30)
parser.add_argument("--batch-size", type=int, default=128)
parser.add_argument("--lr", type=float, default=3e-3)
parser.add_argument("--batches-per-commit", type=int, default=50)
parser.add_argument("--log-interval", type=int, default=100)
parser.add_argument("--ckpt-dir", default="checkpoints")
args = parser.parse_args()


class MelDataset(torch.utils.data.Dataset):
    def __init__(self, split):
        z = np.load(os.path.join(args.data, f"{split}.npz"))
        self.x = torch.from_numpy(z["mel"]).float()       # (n, 40, 98)
        self.y = torch.from_numpy(z["label"]).long()

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


class DSCNN(nn.Module):
    """Depthwise-separable CNN (Zhang et al., Hello Edge)."""

    def __init__(self, n_classes=len(LABELS), ch=64):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(1, ch, (10, 4), stride=(2, 2), padding=(5, 1)),
                                  nn.BatchNorm2d(ch), nn.ReLU())
        blocks = []
        for _ in range(4):
            blocks += [nn.Conv2d(ch, ch, 3, padding=1, groups=ch), nn.BatchNorm2d(ch), nn.ReLU(),
                       nn.Conv2d(ch, ch, 1), nn.BatchNorm2d(ch), nn.ReLU()]
        self.blocks = nn.Sequential(*blocks)
        self.fc = nn.Linear(ch, n_classes)

    def forward(self, x):
        h = self.blocks(self.stem(x.unsqueeze(1)))
        return self.fc(h.mean(dim=(2, 3)))


hvd.init()
torch.manual_seed(7)
if torch.cuda.is_available():
    torch.cuda.set_device(hvd.local_rank())
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

train_set = MelDataset("train")
val_set = MelDataset("validation")
train_sampler = hvd.elastic.ElasticSampler(train_set, shuffle=True, seed=7)
train_loader = torch.utils.data.DataLoader(train_set, batch_size=args.batch_size, sampler=train_sampler)

model = DSCNN().to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())


def validate(epoch):
    # the validation split is small: shard it with a plain sampler, rebuilt after every reset
    sampler = torch.utils.data.distributed.DistributedSampler(val_set, num_replicas=hvd.size(),
                                                              rank=hvd.rank(), shuffle=False)
    loader = torch.utils.data.DataLoader(val_set, batch_size=256, sampler=sampler)
    model.eval()
    correct = torch.zeros(())
    seen = torch.zeros(())
    with torch.no_grad():
        for x, y in loader:
            pred = model(x.to(device)).argmax(1).cpu()
            correct += (pred == y).sum()
            seen += len(y)
    correct = hvd.allreduce(correct, op=hvd.Sum, name="val_correct")
    seen = hvd.allreduce(seen, op=hvd.Sum, name="val_seen")
    if hvd.rank() == 0:
        print(f"epoch {epoch}: val acc {(correct / seen).item():.4f}", flush=True)


@hvd.elastic.run
def train(state):
    while state.epoch < args.epochs:
        model.train()
        for idx, (x, y) in enumerate(train_loader):
            state.batch = idx
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            logits = model(x)
            loss = F.cross_entropy(logits, y)
            loss.backward()
            optimizer.step()
            state.train_sampler.record_batch(idx, args.batch_size)

            if idx % args.log_interval == 0:
                acc = (logits.argmax(1) == y).float().mean().item()
                acc = hvd.allreduce(acc, name="train_acc")
                if hvd.rank() == 0:
                    print(f"epoch {state.epoch} batch {idx} loss {loss.item():.4f} "
                          f"acc {acc:.3f} (np={hvd.size()})", flush=True)
            if idx % args.batches_per_commit == 0:
                state.commit()

        validate(state.epoch)
        os.makedirs(args.ckpt_dir, exist_ok=True)
        torch.save({"epoch": state.epoch, "model": model.state_dict(), "optimizer": optimizer.state_dict()},
                   os.path.join(args.ckpt_dir, "kws_dscnn.pt"))
        state.epoch += 1
        state.batch = 0
        state.train_sampler.set_epoch(state.epoch)
        state.commit()


def on_state_reset():
    print(f"rank {hvd.rank()}: reset, now {hvd.size()} workers", flush=True)


state = hvd.elastic.TorchState(model=model, optimizer=optimizer, train_sampler=train_sampler, epoch=0, batch=0)
state.register_reset_callbacks([on_state_reset])
train(state)
