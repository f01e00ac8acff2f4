"""Fine-tune every model of the zoo on an ImageFolder dataset, head first, then the whole net.

    horovodrun -np 8 python finetune.py --data /data/flowers --models resnet18 mobilenet_v3_small
"""
import argparse
import json
import os

import torch
import torch.nn as nn
import horovod.torch as hvd
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, transforms

import zoo
from engine import freeze_backbone, unfreeze_all, save_checkpoint, maybe_resume
from engine.evaluate import evaluate

p = argparse.ArgumentParser()
p.add_argument("--data", required=True)
p.add_argument("--models", nargs="+", default=["resnet18"], choices=zoo.available())
p.add_argument("--batch-size", type=int, default=32)
p.add_argument("--lr", type=float, default=1e-3)
p.add_argument("--head-epochs", type=int, default=2)
p.add_argument("--epochs", type=int, default=10)
p.add_argument("--pretrained", action="store_true")
p.add_argument("--out", default="zoo_runs")
args = p.parse_args()

hvd.init()
if torch.cuda.is_available():
    torch.cuda.set_device(hvd.rank())
    device = torch.device("cuda")
else:
    device = torch.device("cpu")

norm = transforms.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])
train_ds = datasets.ImageFolder(os.path.join(args.data, "train"), transforms.Compose(
    [transforms.RandomResizedCrop(224), transforms.RandomHorizontalFlip(), transforms.ToTensor(), norm]))
val_ds = datasets.ImageFolder(os.path.join(args.data, "val"), transforms.Compose(
    [transforms.Resize(256), transforms.CenterCrop(224), transforms.ToTensor(), norm]))
train_sampler = DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.rank())
val_sampler = DistributedSampler(val_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
train_loader = DataLoader(train_ds, batch_size=args.batch_size, sampler=train_sampler, num_workers=4, pin_memory=True)
val_loader = DataLoader(val_ds, batch_size=64, sampler=val_sampler, num_workers=4)

summary = {}
for name in args.models:
    out_dir = os.path.join(args.out, name)
    model = zoo.get_model(name, len(train_ds.classes), pretrained=args.pretrained).to(device)
    freeze_backbone(model)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr * hvd.size(), weight_decay=0.05)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    scaler = torch.cuda.amp.GradScaler(enabled=device.type == "cuda")
    criterion = nn.CrossEntropyLoss(label_smoothing=0.1)

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    start_epoch, best_acc = maybe_resume(model, optimizer, scaler, out_dir)

    for epoch in range(start_epoch, args.epochs):
        if epoch == args.head_epochs:
            unfreeze_all(model)
        model.train()
        train_sampler.set_epoch(epoch)
        for x, y in train_loader:
            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
            optimizer.zero_grad()
            with torch.autocast(device_type=device.type, enabled=device.type == "cuda"):
                loss = criterion(model(x), y)
            scaler.scale(loss).backward()
            optimizer.synchronize()
            scaler.unscale_(optimizer)
            nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            with optimizer.skip_synchronize():
                scaler.step(optimizer)
            scaler.update()

        acc = evaluate(model, val_loader, device)
        best_acc = max(best_acc, acc)
        state = {"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                 "scaler": scaler.state_dict(), "epoch": epoch, "best_acc": best_acc}
        save_checkpoint(state, out_dir)
        if acc >= best_acc:
            save_checkpoint(state, out_dir, "best.pt")
        if hvd.rank() == 0:
            print(f"{name} epoch {epoch}: loss {loss.item():.3f} val acc {acc:.4f}", flush=True)

    summary[name] = best_acc
    if hvd.rank() == 0:
        with open(os.path.join(out_dir, "result.json"), "w") as f:
            json.dump({"model": name, "best_acc": best_acc, "world_size": hvd.size()}, f)

if hvd.rank() == 0:
    print(json.dumps(summary, indent=2))
