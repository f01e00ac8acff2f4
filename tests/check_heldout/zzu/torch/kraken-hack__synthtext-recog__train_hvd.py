"""
Line recognizer trained on a mix of rendered synthetic lines and real scanned lines.

Real lines come from a list file (`<png path>|<text>`); synthetic lines are rendered on the fly with PIL
from a word list, so every worker draws its own stream (seeded per worker). The global batch is fixed, so
the learning rate does not depend on the number of workers.

    horovodrun -np 4 python train_hvd.py --real-list data/scans/train.lst --words data/words.txt
"""
import argparse
import os
import random
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn as nn
from PIL import Image, ImageDraw, ImageFont
import horovod.torch as hvd

H, W = 32, 200


@dataclass
class Hparams:
    global_batch: int = 256
    lr: float = 0.02
    momentum: float = 0.9
    steps_per_epoch: int = 500
    epochs: int = 20
    synth_fraction: float = 0.5
    seed: int = 7


def render_line(text, rng):
    img = Image.new("L", (W, H), color=int(rng.integers(200, 256)))
    draw = ImageDraw.Draw(img)
    draw.text((int(rng.integers(0, 8)), int(rng.integers(0, 10))), text, fill=int(rng.integers(0, 60)),
              font=ImageFont.load_default())
    arr = np.asarray(img, dtype=np.float32) / 255.0
    arr += rng.normal(0, 0.04, arr.shape).astype(np.float32)   # scanner noise
    return np.clip(arr, 0, 1)


def load_scan(path):
    return np.asarray(Image.open(path).convert("L").resize((W, H)), dtype=np.float32) / 255.0


def read_list(path):
    with open(path, encoding="utf-8") as f:
        return [tuple(l.rstrip("\n").split("|", 1)) for l in f if "|" in l]


class MixedBatches:
    """Infinite batches of (image, text) from this worker's real lines plus its own synthetic stream."""

    def __init__(self, real, words, batch, synth_fraction, seed):
        self.real, self.words, self.batch = real, words, batch
        self.n_synth = int(round(batch * synth_fraction))
        self.rng = np.random.default_rng(seed)

    def __iter__(self):
        while True:
            idx = self.rng.choice(len(self.real), self.batch - self.n_synth)
            imgs = [load_scan(self.real[i][0]) for i in idx]
            texts = [self.real[i][1] for i in idx]
            for _ in range(self.n_synth):
                t = " ".join(self.rng.choice(self.words, int(self.rng.integers(1, 4))))
                imgs.append(render_line(t, self.rng))
                texts.append(t)
            yield torch.from_numpy(np.stack(imgs))[:, None], texts


class LineNet(nn.Module):
    def __init__(self, n_out):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                  nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                  nn.Conv2d(64, 128, 3, padding=1), nn.ReLU(), nn.MaxPool2d((8, 1)))
        self.lstm = nn.LSTM(128, 128, bidirectional=True, batch_first=True)
        self.proj = nn.Linear(256, n_out)

    def forward(self, x):
        f = self.conv(x).squeeze(2).transpose(1, 2)
        return self.proj(self.lstm(f)[0])


def greedy(ids, alphabet):
    out, prev = [], 0
    for i in ids:
        if i and i != prev:
            out.append(alphabet[i - 1])
        prev = i
    return "".join(out)


def levenshtein(a, b):
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (x != y))
    return row[-1]


def evaluate(model, val, alphabet, batch=64):
    """Full validation set, run by rank 0 only."""
    model.eval()
    errs = chars = 0
    with torch.no_grad():
        for s in range(0, len(val), batch):
            chunk = val[s:s + batch]
            x = torch.from_numpy(np.stack([load_scan(p) for p, _ in chunk]))[:, None]
            for ids, (_, ref) in zip(model(x).argmax(-1).tolist(), chunk):
                errs += levenshtein(greedy(ids, alphabet), ref)
                chars += len(ref)
    model.train()
    return errs / max(chars, 1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--real-list", default="data/scans/train.lst")
    ap.add_argument("--val-list", default="data/scans/val.lst")
    ap.add_argument("--words", default="data/words.txt")
    ap.add_argument("--ckpt", default="synthtext_recog.pt")
    ap.add_argument("--epochs", type=int, default=Hparams.epochs)
    args = ap.parse_args()
    hp = Hparams(epochs=args.epochs)

    hvd.init()
    torch.set_num_threads(max(1, os.cpu_count() // hvd.local_size()))
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())   # model kept on CPU below when no GPU
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    real = read_list(args.real_list)
    val = read_list(args.val_list)
    words = [w.strip() for w in open(args.words, encoding="utf-8") if w.strip()]
    alphabet = sorted(set("".join(t for _, t in real)) | set("".join(words)) | {" "})
    index = {c: i + 1 for i, c in enumerate(alphabet)}

    random.Random(hp.seed).shuffle(real)                  # same order on every worker
    per_worker = len(real) // hvd.size()
    my_real = real[hvd.rank() * per_worker:(hvd.rank() + 1) * per_worker]
    batches = iter(MixedBatches(my_real, words, hp.global_batch // hvd.size(), hp.synth_fraction,
                                seed=hp.seed * 1000 + hvd.rank()))

    torch.manual_seed(hp.seed)
    model = LineNet(len(alphabet) + 1).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=hp.lr, momentum=hp.momentum, nesterov=True)

    start = 0
    if hvd.rank() == 0 and os.path.exists(args.ckpt):
        state = torch.load(args.ckpt, map_location="cpu")
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        start = state["epoch"] + 1
    start = hvd.broadcast_object(start, root_rank=0, name="start_epoch")
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())

    ctc = nn.CTCLoss(zero_infinity=True)
    for epoch in range(start, hp.epochs):
        running = 0.0
        for step in range(hp.steps_per_epoch):
            x, texts = next(batches)
            targets = [torch.tensor([index[c] for c in t]) for t in texts]
            logp = model(x.to(device)).log_softmax(-1).transpose(0, 1)
            loss = ctc(logp, torch.cat(targets), torch.full((x.size(0),), logp.size(0), dtype=torch.long),
                       torch.tensor([len(t) for t in targets]))
            opt.zero_grad()
            loss.backward()
            opt.step()
            running += loss.item()
        if hvd.rank() == 0:
            cer = evaluate(model, val, alphabet)
            print(f"epoch {epoch}: train ctc {running / hp.steps_per_epoch:.3f} (rank 0)  val CER {cer:.4f}")
            torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "epoch": epoch,
                        "alphabet": alphabet}, args.ckpt)


if __name__ == "__main__":
    main()
