"""ResNet34 on Horovod with PyTorch: train_resnet34_torch.py converted with hvdkit's eight steps.

    mpirun -n 8 python examples/resnet34/train_hvd_torch.py --image-size 64 --num-steps 5

Every line that differs from train_resnet34_torch.py carries a `# Horovod:` comment naming its step (of the
eight in docs/eight-steps.md); tests/test_resnet.py checks that nothing else changed. Rank 0 prints every
step's time, images/s, loss and the time left, then each rank's images/s and their sum (hvdkit's Meter, which
knows the ranks after hk.init()). The tools drive it from outside, as they drive any script that times its
steps with hvdkit's Meter or hk.progress:

    hvdkit scale -n 1,2,4 -- python examples/resnet34/train_hvd_torch.py --image-size 64   # docs/scale.md
    hvdkit timeline capture --steps 5:8 -- mpirun -n 2 python examples/resnet34/train_hvd_torch.py --image-size 64
"""
import argparse
import itertools
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

import hvdkit.torch as hk  # Horovod: the eight steps, one call each
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
    p.add_argument("--lr-warmup-steps", type=whole(0), default=5, help="steps from --lr to --lr x ranks")  # Horovod: 4
    p.add_argument("--checkpoint-dir", help="resume from the latest checkpoint here, save one at the end")  # Horovod: 7
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
    ctx = hk.init(seed=args.seed)  # Horovod: steps 1-2, start Horovod, a share of the cores (or a GPU) per rank
    device = ctx.device  # Horovod: step 2, this rank's GPU (or the CPU)
    batch = args.batch_size
    samples = batch * ctx.size * args.total_steps  # Horovod: synthetic images for every rank
    data, classes = load(args, samples)
    loader = hk.shard(data, batch, shuffle=args.data != "synthetic", seed=args.seed, drop_last=True)  # Horovod: step 3
    if len(loader) == 0:
        raise datasets.DataError(f"{len(data)} samples give no full batch of {batch}: use a smaller --batch-size")
    model = resnet34(classes).to(device).train()
    opt = torch.optim.SGD(model.parameters(), lr=hk.scale_lr(args.lr), momentum=0.9)  # Horovod: step 4, LR x ranks
    sched = hk.warmup(opt, steps=args.lr_warmup_steps)  # Horovod: step 4, ramped up from --lr over the first steps
    opt = hk.distributed_optimizer(opt, model)  # Horovod: step 5, gradients averaged over the ranks in opt.step()
    hk.broadcast_state(model, opt)  # Horovod: step 6, every rank starts from rank 0's weights
    ckpt = hk.Checkpointer(args.checkpoint_dir) if args.checkpoint_dir else None  # Horovod: step 7, rank 0 writes
    run = ckpt.restore(model=model, optimizer=opt, scheduler=sched) if ckpt else 0  # Horovod: step 7, all resume

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
        sched.step()  # Horovod: step 4, the next LR of the warmup ramp
        meter.step(loss.item())  # .item() waits for the device: the clock stops when the step is done
    if ckpt:  # Horovod: step 7
        ckpt.save(run, model=model, optimizer=opt, scheduler=sched)  # Horovod: step 7, only rank 0 writes
    loss = hk.average_metrics({"loss": meter.loss_pair()})["loss"]  # Horovod: step 8, over every rank's steps
    meter.finish(loss, framework="torch", model="resnet34", data=args.data, image_size=args.image_size,
                 num_classes=classes, config=vars(args))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except datasets.DataError as exc:  # a missing or unusable data set: one line (exit 2), not a traceback
        errors.fail(exc)
