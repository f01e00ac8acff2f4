"""The PyTorch half of train_hvd.py: data, model and one training step, with hvdkit's steps 3-7."""
import numpy as np
import torch
import torch.nn.functional as F

import hvdkit.torch as hk
from hvdkit.torch.resnet import resnet34

import resnet_data

NAME = "torch"


class _Synthetic(torch.utils.data.Dataset):
    def __init__(self, pool, labels):
        self.pool, self.labels = torch.from_numpy(pool), torch.from_numpy(labels)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return self.pool[i % len(self.pool)], self.labels[i]


class _Folder(torch.utils.data.Dataset):
    def __init__(self, paths, labels, size):
        self.paths, self.labels, self.size = paths, labels, size

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, i):
        from PIL import Image
        with Image.open(self.paths[i]) as im:
            im = im.convert("RGB").resize((self.size, self.size), Image.BILINEAR)
            return torch.from_numpy(np.asarray(im).transpose(2, 0, 1).copy()), int(self.labels[i])


def _normalize(x, size):
    """uint8 N x C x H x W (C = 1 or 3) -> float N x 3 x size x size, ImageNet-normalized."""
    x = x.float().div_(255)
    if x.shape[1] == 1:
        x = x.expand(-1, 3, -1, -1)
    if x.shape[-1] != size:
        x = F.interpolate(x, size=(size, size), mode="bilinear", align_corners=False)
    mean, std = (torch.from_numpy(a).view(1, 3, 1, 1) for a in (resnet_data.MEAN, resnet_data.STD))
    return (x - mean) / std


def dataset(args, total_samples):
    """(torch Dataset, number of classes, whether batches still need _normalize)."""
    if args.data == "synthetic":
        pool, labels = resnet_data.synthetic(total_samples, args.image_size, args.num_classes, args.seed, True)
        return _Synthetic(pool, labels), args.num_classes, False
    if args.data == "fashion-mnist":
        x, y = resnet_data.fashion_mnist(args.data_dir)
        return torch.utils.data.TensorDataset(torch.from_numpy(x[:, None]), torch.from_numpy(y)), 10, True
    paths, labels, classes = resnet_data.image_folder(args.data_dir)
    return _Folder(paths, labels, args.image_size), len(classes), True


class Trainer:
    def __init__(self, args, ctx, total_samples):
        data, self.num_classes, self.raw = dataset(args, total_samples)
        self.size, self.device = args.image_size, ctx.device
        shuffle = args.data != "synthetic"
        self.loader = hk.shard(data, args.batch_size, shuffle=shuffle, seed=args.seed, drop_last=True)  # Horovod: step 3
        if len(self.loader) == 0:
            raise resnet_data.DataError(f"{len(data)} samples give no full batch of {args.batch_size} on each of "
                                        f"{ctx.size} ranks: use a smaller --batch-size")
        self.model = resnet34(self.num_classes).to(ctx.device).train()
        opt = torch.optim.SGD(self.model.parameters(), lr=hk.scale_lr(args.lr), momentum=0.9)  # Horovod: step 4, LR x ranks
        self.scheduler = hk.warmup(opt, steps=args.lr_warmup_steps)  # Horovod: step 4, ramped up from --lr
        self.opt = hk.distributed_optimizer(  # Horovod: step 5, gradients averaged during backward
            opt, self.model, compression="fp16" if args.fp16_allreduce else "none")
        hk.broadcast_state(self.model, self.opt)  # Horovod: step 6, every rank starts from rank 0's weights
        self.ckpt = hk.Checkpointer(args.checkpoint_dir) if args.checkpoint_dir else None  # Horovod: step 7
        self.run_index = self.ckpt.restore(**self._state()) if self.ckpt else 0  # Horovod: step 7, same on every rank

    def _state(self):
        return {"model": self.model, "optimizer": self.opt, "scheduler": self.scheduler}

    def batches(self):
        """Endless (images, labels) batches, epoch after epoch."""
        epoch = 0
        while True:
            self.loader.set_epoch(epoch)  # Horovod: step 3, a new shuffle each epoch, the same on every rank
            for x, y in self.loader:
                x = _normalize(x, self.size) if self.raw else x
                yield x.to(self.device, non_blocking=True), y.to(self.device, non_blocking=True)
            epoch += 1

    def step(self, x, y):
        """One optimizer step; returns the batch's mean loss once the step has finished."""
        self.opt.zero_grad()
        loss = F.cross_entropy(self.model(x), y)
        loss.backward()
        self.opt.step()
        self.scheduler.step()
        return loss.item()  # .item() waits for the device: the step is over when the clock stops

    def save(self):
        if self.ckpt:
            self.ckpt.save(self.run_index, **self._state())  # Horovod: step 7, only rank 0 writes


def allreduce_sum(values, name):
    return hk.hvd.allreduce(torch.tensor(values, dtype=torch.float64), op=hk.hvd.Sum, name=name).tolist()


def allgather(obj, name):
    return hk.hvd.allgather_object(obj, name=name)


def versions():
    return {"torch": torch.__version__}
