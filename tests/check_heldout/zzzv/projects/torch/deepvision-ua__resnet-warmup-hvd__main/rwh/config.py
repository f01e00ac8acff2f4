import argparse


def get_args():
    parser = argparse.ArgumentParser(description="ResNet + warmup, horovod")
    parser.add_argument("--arch", default="resnet_tiny", choices=["resnet_tiny", "resnet18ish"])
    parser.add_argument("--train-size", type=int, default=1024)
    parser.add_argument("--val-size", type=int, default=256)
    parser.add_argument("-b", "--batch-size", type=int, default=32)
    parser.add_argument("--epochs", type=int, default=90)
    parser.add_argument("--base-lr", type=float, default=0.0125)
    parser.add_argument("--warmup-epochs", type=float, default=5)
    parser.add_argument("--wd", type=float, default=5e-5)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--checkpoint-format", default="./checkpoint-{epoch}.pth.tar")
    parser.add_argument("--log-every", type=int, default=20)
    parser.add_argument("--seed", type=int, default=42)
    return parser.parse_args()
