# finetune_hvd.py -- fine-tune an ImageNet-style backbone on our retina grading crops.
# Settings: defaults below < values in .env < command line.
#   horovodrun -np 4 python finetune_hvd.py --data /shared/retina/crops_512
import argparse
import os
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision
import torchvision.transforms as T
import horovod.torch as hvd


def read_dotenv(path=".env"):
    """tiny .env reader, no python-dotenv on the cluster"""
    out = {}
    if os.path.isfile(path):
        for raw in open(path):
            raw = raw.split("#", 1)[0].strip()
            if "=" in raw:
                k, v = raw.split("=", 1)
                out[k.strip().lower()] = v.strip()
    return out


def get_args():
    env = read_dotenv()
    p = argparse.ArgumentParser(description="retina grading fine-tune")
    p.add_argument("--data", default=env.get("data_dir", "/shared/retina/crops_512"))
    p.add_argument("--backbone", default=env.get("backbone_ckpt", "weights/resnet18_imagenet.pth"))
    p.add_argument("--num-grades", type=int, default=int(env.get("num_grades", 5)))
    p.add_argument("--batch-size", type=int, default=int(env.get("batch_size", 32)))
    p.add_argument("--lr", type=float, default=float(env.get("lr", 1e-4)))
    p.add_argument("--epochs", type=int, default=int(env.get("epochs", 12)))
    p.add_argument("--smoothing", type=float, default=float(env.get("label_smoothing", 0.1)))
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--out", default=env.get("out_dir", "outputs"))
    return p.parse_args()


def loaders(args):
    tf_train = T.Compose([T.RandomResizedCrop(224, scale=(0.7, 1.0)), T.RandomHorizontalFlip(),
                          T.ColorJitter(0.1, 0.1), T.ToTensor(),
                          T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])])
    tf_val = T.Compose([T.Resize(256), T.CenterCrop(224), T.ToTensor(),
                        T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])])
    tr = torchvision.datasets.ImageFolder(os.path.join(args.data, "train"), tf_train)
    va = torchvision.datasets.ImageFolder(os.path.join(args.data, "val"), tf_val)
    tr_s = torch.utils.data.distributed.DistributedSampler(tr, num_replicas=hvd.size(), rank=hvd.rank())
    va_s = torch.utils.data.distributed.DistributedSampler(va, num_replicas=hvd.size(), rank=hvd.rank(),
                                                           shuffle=False)
    kw = dict(num_workers=args.workers, pin_memory=torch.cuda.is_available())
    return (torch.utils.data.DataLoader(tr, batch_size=args.batch_size, sampler=tr_s, **kw),
            torch.utils.data.DataLoader(va, batch_size=args.batch_size, sampler=va_s, **kw), tr_s)


def avg(val, name):
    return hvd.allreduce(torch.tensor(val), name=name).item()


def main():
    args = get_args()
    hvd.init()
    use_cuda = torch.cuda.is_available()
    if use_cuda:
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if use_cuda else "cpu")

    train_dl, val_dl, train_sampler = loaders(args)

    model = torchvision.models.resnet18(weights=None)
    if os.path.exists(args.backbone):
        model.load_state_dict(torch.load(args.backbone, map_location="cpu"))
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    # swap the 1000-way ImageNet head for the grading head
    model.fc = nn.Sequential(nn.Dropout(0.2), nn.Linear(model.fc.in_features, args.num_grades))
    model.to(device)

    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
    criterion = nn.CrossEntropyLoss(label_smoothing=args.label_smoothing)

    best = 0.0
    for epoch in range(args.epochs):
        model.train()
        train_sampler.set_epoch(epoch)
        t0 = time.time()
        for i, (x, y) in enumerate(train_dl):
            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            if i % 20 == 0 and hvd.rank() == 0:
                print(f"ep {epoch} it {i}/{len(train_dl)} loss {loss.item():.4f}", flush=True)
        scheduler.step()

        model.eval()
        v_loss, v_acc, nb = 0.0, 0.0, 0
        with torch.no_grad():
            for x, y in val_dl:
                x, y = x.to(device), y.to(device)
                out = model(x)
                v_loss += F.cross_entropy(out, y).item()
                v_acc += (out.argmax(1) == y).float().mean().item()
                nb += 1
        v_loss = avg(v_loss / max(nb, 1), "val_loss")
        v_acc = avg(v_acc / max(nb, 1), "val_acc")
        if hvd.rank() == 0:
            print(f"epoch {epoch}: val_loss {v_loss:.4f} val_acc {v_acc:.4f} ({time.time() - t0:.0f}s)")
            if v_acc > best:
                best = v_acc
                os.makedirs(args.out, exist_ok=True)
                torch.save(model.state_dict(), os.path.join(args.out, "best_grading.pth"))


if __name__ == "__main__":
    main()
