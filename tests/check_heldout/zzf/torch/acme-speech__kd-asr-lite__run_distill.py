import argparse
import dataclasses
from dataclasses import dataclass

import torch
import horovod.torch as hvd

from asrkd.data import make_loader
from asrkd.env import LOCAL_RANK
from asrkd.model import KWSNet, teacher_from_checkpoint
from asrkd.trainer import DistillTrainer


@dataclass
class RunArgs:
    data_root: str = "data/speech_commands_feats"
    teacher_ckpt: str = "exp/teacher/best.pt"
    out_dir: str = "exp/student_kd"
    epochs: int = 30
    batch_size: int = 128
    lr: float = 1e-3
    warmup_steps: int = 500
    temperature: float = 2.0
    kd_weight: float = 0.7
    student_hidden: int = 64
    student_layers: int = 1


def parse_args() -> RunArgs:
    p = argparse.ArgumentParser()
    for f in dataclasses.fields(RunArgs):
        p.add_argument("--" + f.name.replace("_", "-"), dest=f.name, type=type(f.default), default=f.default)
    return RunArgs(**vars(p.parse_args()))


def main():
    args = parse_args()
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(LOCAL_RANK)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    train_loader = make_loader(args.data_root, "train", args.batch_size, train=True)
    val_loader = make_loader(args.data_root, "valid", 256, train=False)

    teacher = teacher_from_checkpoint(args.teacher_ckpt)
    student = KWSNet(hidden=args.student_hidden, layers=args.student_layers)
    opt = torch.optim.AdamW(student.parameters(), lr=args.lr * hvd.size(), weight_decay=1e-2)
    opt = hvd.DistributedOptimizer(opt, named_parameters=student.named_parameters())
    warmup = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / args.warmup_steps))

    trainer = DistillTrainer(teacher, student, opt, device, args.temperature, args.kd_weight, args.out_dir)
    trainer.fit(train_loader, val_loader, args.epochs, scheduler=warmup)


if __name__ == "__main__":
    main()
