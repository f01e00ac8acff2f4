import argparse

import horovod.torch as hvd
import torch


def parse_opts(argv=None):
    parser = argparse.ArgumentParser(description="K-Food 150-class classifier (Horovod)")
    parser.add_argument("--data_root", type=str, default="/data/kfood")
    parser.add_argument("--arch", type=str, default="resnet50",
                        choices=["resnet50", "efficientnet_b0", "mobilenet_v3"])
    parser.add_argument("--pretrained", action="store_true", default=True)
    parser.add_argument("--epochs", type=int, default=40)
    parser.add_argument("--batch_size", type=int, default=64, help="per process")
    parser.add_argument("--lr", type=float, default=0.0125, help="single-GPU learning rate")
    parser.add_argument("--momentum", type=float, default=0.9)
    parser.add_argument("--wd", type=float, default=5e-5)
    parser.add_argument("--warmup_epochs", type=int, default=5)
    parser.add_argument("--label_smoothing", type=float, default=0.1)
    parser.add_argument("--num_workers", type=int, default=6)
    parser.add_argument("--save_dir", type=str, default="./weights")
    parser.add_argument("--print_freq", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    args.cuda = torch.cuda.is_available()
    if args.cuda:
        # Horovod: pin GPU to local rank.
        torch.cuda.set_device(hvd.local_rank())
        torch.backends.cudnn.benchmark = True
    return args
