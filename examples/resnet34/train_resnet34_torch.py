"""ResNet34 training throughput with PyTorch in one process: the course's starting point.

    python examples/resnet34/train_resnet34_torch.py --image-size 64 --num-steps 5

Needs torch and hvdkit's framework-free part (its model and progress meter), not Horovod.
train_hvd_torch.py is this file converted to Horovod: `diff train_resnet34_torch.py train_hvd_torch.py` is the
conversion. Prints every step's time, images/s, loss and the time left, then the images/s of the timed steps;
with $HVDKIT_RECORD set, writes them as a run record (docs/scale.md).
"""
import argparse
import itertools
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

from hvdkit.common import errors
from hvdkit.data import datasets
from hvdkit.scale.meter import Meter
from hvdkit.models.cost import time_note
from hvdkit.models.resnet_torch import resnet34

SOURCES = ("synthetic", "fashion-mnist", "folder")
MEAN = torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1)  # ImageNet's per-channel statistics
STD = torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1)
POOL = 32  # distinct synthetic images kept in memory: sample i is image i % POOL
IMAGE_EXTENSIONS = (".jpg", ".jpeg", ".png", ".bmp", ".gif")


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, no usage block
        self.exit(2, f"{self.prog}: error: {message}\n")


def whole(minimum):
    def parse(text):
        if not text.isdigit() or int(text) < minimum:
            raise argparse.ArgumentTypeError(f"must be a whole number >= {minimum}, got {text!r}")
        return int(text)
    return parse


def parse_args():
    p = Parser(description="ResNet34 training throughput, with live progress.",
               formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--data", choices=SOURCES, default="synthetic")
    p.add_argument("--data-dir", help="Fashion-MNIST's directory (default: searched), or the image folder")
    p.add_argument("--image-size", type=whole(1), default=224, help="images are SIZE x SIZE x 3 (32-64 for a CPU)")
    p.add_argument("--batch-size", type=whole(1), default=16, help="images per step (per rank, with Horovod)")
    p.add_argument("--num-steps", "--num_steps", type=whole(1), default=10, help="timed steps")
    p.add_argument("--warmup-steps", type=whole(0), default=2, help="untimed steps before the timed ones")
    p.add_argument("--num-classes", type=whole(1), default=1000, help="classes of the synthetic data")
    p.add_argument("--lr", type=float, default=0.0125, help="SGD learning rate for one worker")
    p.add_argument("--print-every", type=whole(1), default=1, help="a progress line every N steps")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    if args.lr <= 0:
        p.error(f"--lr must be > 0, got {args.lr}")
    if args.data == "folder" and not (args.data_dir and os.path.isdir(args.data_dir)):
        p.error("--data folder needs --data-dir DIR (one subdirectory of images per class)")
    args.total_steps = args.warmup_steps + args.num_steps
    return args


class Synthetic(torch.utils.data.Dataset):
    """ImageNet-shaped random images, already "normalized"; labels cycle through the classes."""

    def __init__(self, samples, size, classes, seed):
        rng = np.random.default_rng(seed)
        self.pool = torch.from_numpy(rng.standard_normal((min(POOL, samples), 3, size, size), dtype=np.float32))
        self.labels = torch.arange(samples) % classes

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return self.pool[i % len(self.pool)], self.labels[i]


class Folder(torch.utils.data.Dataset):
    """ROOT/<class>/<image>, ImageNet's train/ layout: uint8 3 x size x size images."""

    def __init__(self, root, size):
        self.classes = sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)))
        self.items = [(os.path.join(path, f), label) for label, name in enumerate(self.classes)
                      for path, _, files in sorted(os.walk(os.path.join(root, name)))
                      for f in sorted(files) if f.lower().endswith(IMAGE_EXTENSIONS)]
        if not self.items:
            raise datasets.DataError(f"no images ({', '.join(IMAGE_EXTENSIONS)}) in class subdirectories of {root}")
        self.size = size

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        from PIL import Image
        path, label = self.items[i]
        with Image.open(path) as im:
            im = im.convert("RGB").resize((self.size, self.size), Image.BILINEAR)
            return torch.from_numpy(np.asarray(im).transpose(2, 0, 1).copy()), label


def load(args, samples):
    """(torch Dataset, number of classes); `samples` synthetic images if asked for."""
    if args.data == "synthetic":
        return Synthetic(samples, args.image_size, args.num_classes, args.seed), args.num_classes
    if args.data == "fashion-mnist":
        x, y, _, _ = datasets.load("fashion-mnist", args.data_dir)
        return torch.utils.data.TensorDataset(torch.from_numpy(x[:, None]), torch.from_numpy(y)), 10
    data = Folder(args.data_dir, args.image_size)
    return data, len(data.classes)


def ready(loader, args, device):
    """Endless (images, labels) batches on `device`, epoch after epoch, float and ImageNet-normalized."""
    for epoch in itertools.count():
        if hasattr(loader, "set_epoch"):  # hvdkit's sharded loader: a new shuffle each epoch
            loader.set_epoch(epoch)
        for x, y in loader:
            if args.data != "synthetic":
                x = x.float().div_(255).expand(-1, 3, -1, -1)  # grey images get three equal channels
                x = F.interpolate(x, size=(args.image_size,) * 2, mode="bilinear", align_corners=False)
                x = (x - MEAN) / STD
            yield x.to(device, non_blocking=True), y.to(device, non_blocking=True)


def main():
    args = parse_args()
    torch.manual_seed(args.seed)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    batch = args.batch_size
    samples = batch * args.total_steps
    data, classes = load(args, samples)
    loader = torch.utils.data.DataLoader(data, batch, shuffle=args.data != "synthetic", drop_last=True)
    if len(loader) == 0:
        raise datasets.DataError(f"{len(data)} samples give no full batch of {batch}: use a smaller --batch-size")
    model = resnet34(classes).to(device).train()
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)

    meter = Meter(args.total_steps, args.warmup_steps, batch, every=args.print_every)
    meter.say(f"ResNet34 (torch), {args.data} data {args.image_size}x{args.image_size}, batch {batch}, "
              f"{args.warmup_steps} warmup + {args.num_steps} timed steps",
              time_note(args.image_size, batch, args.total_steps, cpu=device == "cpu"))
    batches = ready(loader, args, device)
    for x, y in itertools.islice(batches, args.total_steps):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        meter.step(loss.item())  # .item() waits for the device: the clock stops when the step is done
    loss_sum, count = meter.loss_pair()
    loss = loss_sum / count
    meter.finish(loss, framework="torch", model="resnet34", data=args.data, image_size=args.image_size,
                 num_classes=classes, config=vars(args))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except datasets.DataError as exc:  # a missing or unusable data set: one line (exit 2), not a traceback
        errors.fail(exc)
