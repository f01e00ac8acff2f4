import argparse
import os

import torch
import horovod.torch as hvd


def parse_options(argv=None):
    parser = argparse.ArgumentParser(description="CIFAR-10 ResNet with Horovod")
    parser.add_argument("--arch", default="resnet20")
    parser.add_argument("--data", default=os.path.expanduser("~/datasets/cifar10"))
    parser.add_argument("--epochs", type=int, default=182)
    parser.add_argument("--batch-size", type=int, default=128, help="per process")
    parser.add_argument("--lr", type=float, default=0.1, help="lr of one process")
    parser.add_argument("--milestones", type=int, nargs="+", default=[91, 136])
    parser.add_argument("--fp16-allreduce", action="store_true")
    parser.add_argument("--checkpoint", default="checkpoints/cifar.pt")
    parser.add_argument("--no-cuda", action="store_true")
    opt = parser.parse_args(argv)

    # Horovod is started here so every entry point gets the same device setup
    hvd.init()
    opt.cuda = torch.cuda.is_available() and not opt.no_cuda
    if opt.cuda:
        torch.cuda.set_device(hvd.local_rank())
        opt.device = torch.device("cuda")
    else:
        torch.set_num_threads(max(1, os.cpu_count() // hvd.local_size()))
        opt.device = torch.device("cpu")
    return opt
