"""I3D on UCF-101 with Horovod (fine-tuning recipe from the paper, scaled down)."""
import argparse
import os
import time
from collections import defaultdict

import torch
import torch.nn as nn
import horovod.torch as hvd
from torch.utils.data import DataLoader

from i3d import InceptionI3dTiny, UCF101Clips, ClipSampler
from i3d.lr import warmup_step_lr

parser = argparse.ArgumentParser()
parser.add_argument("--train-videos", type=int, default=400)
parser.add_argument("--test-videos", type=int, default=120)
parser.add_argument("--clips-per-video", type=int, default=3)
parser.add_argument("--batch-size", type=int, default=6)
parser.add_argument("--lr", type=float, default=0.01)
parser.add_argument("--epochs", type=int, default=60)
parser.add_argument("--warmup", type=float, default=3)
parser.add_argument("--lr-steps", type=int, nargs="+", default=[30, 50])
parser.add_argument("--out", default="runs/i3d_ucf101")
parser.add_argument("--eval-every", type=int, default=5)
args = parser.parse_args()

hvd.init()
torch.manual_seed(0)
use_cuda = torch.cuda.is_available()
if use_cuda:
    torch.cuda.set_device(hvd.local_rank())
device = torch.device("cuda" if use_cuda else "cpu")

train_set = UCF101Clips("train", args.train_videos, args.clips_per_video)
test_set = UCF101Clips("test", args.test_videos, args.clips_per_video)
train_sampler = ClipSampler(train_set, shuffle=True, seed=42)
test_sampler = ClipSampler(test_set, shuffle=False)
train_loader = DataLoader(train_set, batch_size=args.batch_size, sampler=train_sampler, num_workers=2)
test_loader = DataLoader(test_set, batch_size=args.batch_size, sampler=test_sampler, num_workers=2)

model = InceptionI3dTiny(num_classes=101).to(device)
criterion = nn.CrossEntropyLoss()
base_lr = args.lr * hvd.size()
optimizer = torch.optim.SGD(model.parameters(), lr=base_lr, momentum=0.9, weight_decay=1e-7)
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)


def test(epoch):
    model.eval()
    video_scores = defaultdict(lambda: 0)
    video_labels = {}
    with torch.no_grad():
        for clips, labels, vids in test_loader:
            logits = model(clips.to(device)).softmax(1).cpu()
            for score, label, vid in zip(logits, labels.tolist(), vids.tolist()):
                video_scores[vid] = video_scores[vid] + score
                video_labels[vid] = label
    hits = [int(video_scores[v].argmax().item() == video_labels[v]) for v in video_scores]
    acc = sum(hits) / max(len(hits), 1)
    if hvd.rank() == 0:
        print(f"epoch {epoch}: video-level top1 {acc * 100:.2f}% over {len(hits)} videos")
    return acc


for epoch in range(args.epochs):
    model.train()
    train_sampler.set_epoch(epoch)
    tic = time.time()
    for it, (clips, labels, _) in enumerate(train_loader):
        lr = warmup_step_lr(optimizer, base_lr, epoch, it, len(train_loader), args.warmup, args.lr_steps)
        clips, labels = clips.to(device), labels.to(device)
        loss = criterion(model(clips), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    if hvd.rank() == 0:
        print(f"epoch {epoch} loss {loss.item():.3f} lr {lr:.5f} {time.time() - tic:.0f}s")
    if (epoch + 1) % args.eval_every == 0:
        test(epoch)
        if hvd.rank() == 0:
            os.makedirs(args.out, exist_ok=True)
            torch.save(model.state_dict(), os.path.join(args.out, f"i3d_ep{epoch + 1}.pt"))
