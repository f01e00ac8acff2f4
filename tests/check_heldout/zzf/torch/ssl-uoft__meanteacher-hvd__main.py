"""Mean Teacher on SVHN-1k with Horovod (one process per GPU)."""
import argparse

import torch
import horovod.torch as hvd
from torchvision.models import resnet18

from mt import load_config
from mt.data import make_loaders
from mt.ema import make_ema
from mt.trainer import MeanTeacherTrainer


def parse():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--config", default="configs/svhn_1k.yaml")
    ap.add_argument("--lr", type=float)
    ap.add_argument("--epochs", type=int)
    ap.add_argument("--out-dir", dest="out_dir")
    return ap.parse_args()


def main():
    args = parse()
    cfg = load_config(args.config, lr=args.lr, epochs=args.epochs, out_dir=args.out_dir)

    hvd.init()
    torch.manual_seed(42 + hvd.rank())
    device = torch.device("cpu")
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda", hvd.local_rank())
    if hvd.rank() == 0:
        print(cfg)

    loaders = make_loaders(cfg)
    student = resnet18(num_classes=10).to(device)
    optimizer = torch.optim.SGD(student.parameters(), lr=cfg.lr, momentum=cfg.momentum,
                                weight_decay=cfg.weight_decay, nesterov=True)
    hvd.broadcast_parameters(student.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=student.named_parameters())

    teacher = make_ema(student)
    trainer = MeanTeacherTrainer(cfg, student, teacher, optimizer, loaders, device)
    trainer.fit()


if __name__ == "__main__":
    main()
