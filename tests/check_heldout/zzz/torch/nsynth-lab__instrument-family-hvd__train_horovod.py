"""NSynth instrument-family classifier with waveform mixup, trained through horovod.run.

The driver (this file) launches `train_worker` on --num-proc local processes; on a cluster run the same
function under horovodrun with --launcher=none.
"""
import argparse
import json
import math
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

import horovod
import horovod.torch as hvd

FAMILIES = ["bass", "brass", "flute", "guitar", "keyboard", "mallet", "organ", "reed", "string",
            "synth_lead", "vocal"]


class NSynthArrays(torch.utils.data.Dataset):
    """<root>/<split>/audio.npy (N x 64000 float16, 4 s at 16 kHz) and examples.json (note_str -> meta)."""

    def __init__(self, root, split):
        self.audio = np.load(os.path.join(root, split, "audio.npy"), mmap_mode="r")
        with open(os.path.join(root, split, "examples.json")) as f:
            meta = json.load(f)
        self.labels = np.array([meta[k]["instrument_family"] for k in sorted(meta)], dtype=np.int64)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return torch.from_numpy(self.audio[i].astype(np.float32)), int(self.labels[i])


class MelCNN(nn.Module):
    def __init__(self, n_classes=len(FAMILIES), n_mels=96, n_fft=1024, hop=256, sr=16000):
        super().__init__()
        self.n_fft, self.hop = n_fft, hop
        f_mel = lambda hz: 1127.0 * math.log(1.0 + hz / 700.0)
        edges = [700.0 * (math.exp(m / 1127.0) - 1.0)
                 for m in np.linspace(0.0, f_mel(sr / 2), n_mels + 2)]
        bins = torch.fft.rfftfreq(n_fft, 1.0 / sr)
        fb = torch.stack([torch.clamp(torch.minimum((bins - edges[i]) / (edges[i + 1] - edges[i]),
                                                    (edges[i + 2] - bins) / (edges[i + 2] - edges[i + 1])), min=0)
                          for i in range(n_mels)])
        self.register_buffer("fb", fb)
        self.register_buffer("window", torch.hann_window(n_fft))
        chans = [1, 32, 64, 128, 256]
        self.features = nn.Sequential(*[nn.Sequential(nn.Conv2d(a, b, 3, padding=1), nn.BatchNorm2d(b),
                                                      nn.ELU(), nn.MaxPool2d(2))
                                        for a, b in zip(chans[:-1], chans[1:])])
        self.classifier = nn.Linear(chans[-1], n_classes)

    def forward(self, wav):
        spec = torch.stft(wav, self.n_fft, self.hop, window=self.window, return_complex=True)
        mel = torch.log1p(self.fb @ spec.abs().pow(2)).unsqueeze(1)
        return self.classifier(self.features(mel).mean(dim=(2, 3)))


def waveform_mixup(wav, target, n_classes, alpha):
    onehot = F.one_hot(target, n_classes).float()
    if alpha <= 0:
        return wav, onehot
    lam = float(np.random.beta(alpha, alpha))
    perm = torch.randperm(wav.size(0), device=wav.device)
    return lam * wav + (1 - lam) * wav[perm], lam * onehot + (1 - lam) * onehot[perm]


def rank_indices(n, rank, size, seed, epoch):
    g = torch.Generator().manual_seed(seed * 1000 + epoch)
    perm = torch.randperm(n, generator=g)
    perm = perm[: n - n % size]
    return perm[rank::size].tolist()


@torch.no_grad()
def accuracy(model, dataset, device, batch=256):
    model.eval()
    loader = torch.utils.data.DataLoader(dataset, batch_size=batch, num_workers=4)
    correct = 0
    for wav, y in loader:
        correct += (model(wav.to(device)).argmax(1).cpu() == y).sum().item()
    model.train()
    return correct / len(dataset)


def train_worker(cfg):
    hvd.init()
    torch.manual_seed(cfg["seed"])
    np.random.seed(cfg["seed"] + hvd.rank())  # mixup draws may differ per worker
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda", hvd.local_rank())
    else:
        device = torch.device("cpu")

    train_set = NSynthArrays(cfg["data"], "nsynth-train")
    test_set = NSynthArrays(cfg["data"], "nsynth-test")
    per_worker = cfg["global_batch"] // hvd.size()

    model = MelCNN().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=0.9, nesterov=True,
                                weight_decay=5e-4)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         op=hvd.Average)

    ckpt_file = os.path.join(cfg["out"], "checkpoint.pt")
    snapshot = None
    if hvd.rank() == 0 and os.path.isfile(ckpt_file):
        snapshot = torch.load(ckpt_file, map_location="cpu")
    snapshot = hvd.broadcast_object(snapshot, root_rank=0, name="snapshot")
    first_epoch = 0
    if snapshot is not None:
        model.load_state_dict(snapshot["model"])
        optimizer.load_state_dict(snapshot["optimizer"])
        first_epoch = snapshot["epoch"] + 1
    hvd.broadcast_parameters(list(model.named_parameters()), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=cfg["epochs"],
                                                           last_epoch=first_epoch - 1) \
        if first_epoch == 0 else None
    history = []
    for epoch in range(first_epoch, cfg["epochs"]):
        if scheduler is None:
            for group in optimizer.param_groups:
                group["lr"] = 0.5 * cfg["lr"] * (1 + math.cos(math.pi * epoch / cfg["epochs"]))
        subset = torch.utils.data.Subset(train_set, rank_indices(len(train_set), hvd.rank(), hvd.size(),
                                                                 cfg["seed"], epoch))
        loader = torch.utils.data.DataLoader(subset, batch_size=per_worker, shuffle=True, drop_last=True,
                                             num_workers=4, pin_memory=True)
        for step, (wav, y) in enumerate(loader):
            wav, y = wav.to(device), y.to(device)
            wav, soft = waveform_mixup(wav, y, len(FAMILIES), cfg["mixup_alpha"])
            loss = torch.sum(-soft * F.log_softmax(model(wav), dim=1), dim=1).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if hvd.rank() == 0 and step % 100 == 0:
                print(f"[{epoch}:{step}] loss={loss.item():.4f}", flush=True)
        if scheduler is not None:
            scheduler.step()

        if hvd.rank() == 0:
            acc = accuracy(model, test_set, device)
            history.append({"epoch": epoch, "test_acc": acc})
            print(f"epoch {epoch}: test accuracy {acc:.4f}", flush=True)
            os.makedirs(cfg["out"], exist_ok=True)
            torch.save({"epoch": epoch, "model": model.state_dict(), "optimizer": optimizer.state_dict()},
                       ckpt_file)
    return history


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=os.environ.get("NSYNTH_ROOT", "/data/nsynth"))
    ap.add_argument("--out", default="checkpoints/nsynth")
    ap.add_argument("--num-proc", type=int, default=4)
    ap.add_argument("--launcher", choices=["horovod.run", "none"], default="horovod.run")
    ap.add_argument("--global-batch", type=int, default=256)
    ap.add_argument("--lr", type=float, default=0.1, help="lr for the global batch")
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--mixup-alpha", type=float, default=0.4)
    ap.add_argument("--seed", type=int, default=7)
    cfg = {k.replace("-", "_"): v for k, v in vars(ap.parse_args()).items()}
    if cfg["launcher"] == "none":
        train_worker(cfg)
    else:
        results = horovod.run(train_worker, args=(cfg,), num_proc=cfg["num_proc"])
        print(json.dumps(results[0], indent=1))


if __name__ == "__main__":
    main()
