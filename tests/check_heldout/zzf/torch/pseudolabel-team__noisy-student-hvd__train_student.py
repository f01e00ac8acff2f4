"""Noisy Student self-training, distributed with Horovod.

Round 0 uses a teacher trained on the labelled split (--teacher-ckpt); every later round the
previous student becomes the teacher and a fresh, noised student is trained on labelled +
pseudo-labelled images.
"""
import argparse
import copy
import os

import torch
import torch.nn.functional as F
import horovod.torch as hvd

from nst.data import clean_tf, labeled_set, sharded_loader, student_loader, unlabeled_files
from nst.labeling import pseudo_label
from nst.models import build_model, load_teacher
from nst.utils import global_accuracy, rprint, save_on_rank0

parser = argparse.ArgumentParser()
parser.add_argument("--root", default="data/stl_subset")
parser.add_argument("--teacher-arch", default="resnet18")
parser.add_argument("--student-arch", default="resnet34")
parser.add_argument("--teacher-ckpt", default="ckpt/teacher_r18.pt")
parser.add_argument("--num-classes", type=int, default=10)
parser.add_argument("--rounds", type=int, default=3)
parser.add_argument("--epochs-per-round", type=int, default=30)
parser.add_argument("--batch-size", type=int, default=64)
parser.add_argument("--lr", type=float, default=0.02)
parser.add_argument("--threshold", type=float, default=0.7)
parser.add_argument("--seed", type=int, default=0)
parser.add_argument("--save-dir", default="ckpt/noisy_student")
args = parser.parse_args()

hvd.init()
torch.manual_seed(args.seed + hvd.rank())  # different dropout / stochastic depth per worker
if torch.cuda.is_available():
    torch.cuda.set_device(hvd.local_rank())
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

files = unlabeled_files(args.root)
val_loader = sharded_loader(labeled_set(args.root, "val", clean_tf), 256, shuffle=False)

teacher = load_teacher(args.teacher_arch, args.num_classes, args.teacher_ckpt, device)
student = build_model(args.student_arch, args.num_classes, drop_rate=0.5).to(device)
hvd.broadcast_parameters(student.state_dict(), root_rank=0)

for rnd in range(args.rounds):
    if rnd > 0:
        teacher = copy.deepcopy(student).eval()
        student = build_model(args.student_arch, args.num_classes, drop_rate=0.5).to(device)

    paths, labels = pseudo_label(teacher, files, device, threshold=args.threshold)
    rprint(f"round {rnd}: {len(paths)} pseudo-labelled images on rank 0")
    train_loader = student_loader(args.root, paths, labels, args.batch_size)

    opt = torch.optim.SGD(student.parameters(), lr=args.lr * hvd.size(), momentum=0.9, weight_decay=1e-4)
    opt = hvd.DistributedOptimizer(opt, named_parameters=student.named_parameters())
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=args.epochs_per_round)

    for epoch in range(args.epochs_per_round):
        student.train()
        train_loader.sampler.set_epoch(epoch)
        for x, y in train_loader:
            x, y = x.to(device), y.to(device)
            loss = F.cross_entropy(student(x), y, label_smoothing=0.1)
            opt.zero_grad()
            loss.backward()
            opt.step()
        sched.step()
        acc = global_accuracy(student, val_loader, device)
        rprint(f"round {rnd} epoch {epoch} val acc {acc:.4f}")

    save_on_rank0(student, os.path.join(args.save_dir, f"student_round{rnd}.pt"))
