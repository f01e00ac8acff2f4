# Linear evaluation of a VICReg-pretrained ResNet-50 (frozen backbone) on ImageNet-style folders.
#
#   horovodrun -np 8 python linear_eval.py --data /data/imagenet --pretrained resnet50_vicreg.pth
#
# Only the linear head is trained; the backbone weights come from the same file on every worker.
import argparse
import os
from pathlib import Path

import torch
import torch.nn as nn
import torchvision
from torchvision import transforms
import horovod.torch as hvd


def get_arguments():
    parser = argparse.ArgumentParser(description="VICReg linear probe", add_help=True)
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--pretrained", type=Path, required=True, help="backbone state_dict (.pth)")
    parser.add_argument("--exp-dir", type=Path, default=Path("./exp/linear"))
    parser.add_argument("--epochs", type=int, default=100)
    parser.add_argument("--batch-size", type=int, default=256, help="per worker")
    parser.add_argument("--lr-head", type=float, default=0.02)
    parser.add_argument("--weight-decay", type=float, default=1e-6)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--save-every", type=int, default=10)
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--split-seed", type=int, default=31)
    return parser.parse_args()


def strided_subset(dataset, seed, shuffle=True):
    idx = torch.randperm(len(dataset), generator=torch.Generator().manual_seed(seed)) if shuffle \
        else torch.arange(len(dataset))
    return torch.utils.data.Subset(dataset, idx[hvd.rank()::hvd.size()].tolist())


def main(args):
    hvd.init()
    gpu = hvd.local_rank()
    if torch.cuda.is_available():
        torch.cuda.set_device(gpu)
    device = torch.device(f"cuda:{gpu}" if torch.cuda.is_available() else "cpu")
    torch.backends.cudnn.benchmark = True

    backbone = torchvision.models.resnet50()
    backbone.fc = nn.Identity()
    state = torch.load(args.pretrained, map_location="cpu")
    missing, unexpected = backbone.load_state_dict(state, strict=False)
    assert missing == [] and unexpected == [], (missing, unexpected)
    backbone.requires_grad_(False).eval().to(device)

    head = nn.Linear(2048, 1000).to(device)
    head.weight.data.normal_(mean=0.0, std=0.01)
    head.bias.data.zero_()

    optimizer = torch.optim.SGD(head.parameters(), lr=args.lr_head, momentum=0.9, weight_decay=args.weight_decay)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=head.named_parameters(prefix="head"))
    # warm up to lr_head x workers, then cosine
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer,
        lambda e: hvd.size() * min(1.0, (e + 1) / args.warmup) * 0.5 * (1 + torch.cos(torch.tensor(e / args.epochs * 3.14159)).item()),
    )

    start_epoch, best_acc = 0, 0.0
    ckpt_file = args.exp_dir / "checkpoint.pth"
    if hvd.rank() == 0 and ckpt_file.is_file():
        ckpt = torch.load(ckpt_file, map_location="cpu")
        start_epoch, best_acc = ckpt["epoch"], ckpt["best_acc"]
        head.load_state_dict(ckpt["head"])
        optimizer.load_state_dict(ckpt["optimizer"])
    start_epoch, best_acc = hvd.broadcast_object((start_epoch, best_acc), root_rank=0)
    hvd.broadcast_parameters(head.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    for _ in range(start_epoch):
        scheduler.step()

    normalize = transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])
    train_ds = torchvision.datasets.ImageFolder(args.data / "train", transforms.Compose([
        transforms.RandomResizedCrop(224), transforms.RandomHorizontalFlip(), transforms.ToTensor(), normalize]))
    val_ds = torchvision.datasets.ImageFolder(args.data / "val", transforms.Compose([
        transforms.Resize(256), transforms.CenterCrop(224), transforms.ToTensor(), normalize]))
    n_steps = len(train_ds) // (args.batch_size * hvd.size())
    train_loader = torch.utils.data.DataLoader(strided_subset(train_ds, args.split_seed), batch_size=args.batch_size,
                                               shuffle=True, num_workers=args.workers, pin_memory=True, drop_last=True)
    val_loader = torch.utils.data.DataLoader(strided_subset(val_ds, 0, shuffle=False), batch_size=256,
                                             num_workers=args.workers, pin_memory=True)

    criterion = nn.CrossEntropyLoss()
    for epoch in range(start_epoch, args.epochs):
        head.train()
        for step, (images, target) in enumerate(train_loader):
            if step >= n_steps:
                break
            with torch.no_grad():
                feats = backbone(images.to(device, non_blocking=True))
            loss = criterion(head(feats), target.to(device, non_blocking=True))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if step % 200 == 0 and hvd.rank() == 0:
                print(f"epoch {epoch} step {step}/{n_steps} loss {loss.item():.3f} lr {scheduler.get_last_lr()[0]:.4f}")
        scheduler.step()

        head.eval()
        counts = torch.zeros(3)
        with torch.no_grad():
            for images, target in val_loader:
                out = head(backbone(images.to(device)))
                top5 = out.topk(5, dim=1).indices.cpu()
                counts[0] += (top5[:, 0] == target).sum()
                counts[1] += (top5 == target[:, None]).any(dim=1).sum()
                counts[2] += target.numel()
        counts = hvd.allreduce(counts, op=hvd.Sum, name="val_counts")
        acc1, acc5 = (100 * counts[:2] / counts[2]).tolist()

        if hvd.rank() == 0:
            print(f"epoch {epoch}: acc1 {acc1:.2f} acc5 {acc5:.2f}")
            args.exp_dir.mkdir(parents=True, exist_ok=True)
            best_acc = max(best_acc, acc1)
            state = dict(epoch=epoch + 1, best_acc=best_acc, head=head.state_dict(), optimizer=optimizer.state_dict())
            torch.save(state, ckpt_file)
            if (epoch + 1) % args.save_every == 0:
                torch.save(head.state_dict(), args.exp_dir / f"head_ep{epoch + 1}.pth")


if __name__ == "__main__":
    main(get_arguments())
