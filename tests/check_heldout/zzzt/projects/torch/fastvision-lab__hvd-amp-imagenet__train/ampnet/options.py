import argparse


def get_parser():
    p = argparse.ArgumentParser(description="hvd amp imagenet trainer")
    p.add_argument("--data", default="", help="ImageFolder root; empty -> synthetic data")
    p.add_argument("--arch", default="resnet18")
    p.add_argument("--epochs", type=int, default=90)
    p.add_argument("--batch-size", type=int, default=64, help="per-GPU batch")
    p.add_argument("--base-lr", type=float, default=0.0125, help="lr for a single worker")
    p.add_argument("--momentum", type=float, default=0.9)
    p.add_argument("--wd", type=float, default=5e-5)
    p.add_argument("--warmup-epochs", type=float, default=5)
    p.add_argument("--amp", action="store_true", default=True)
    p.add_argument("--no-amp", dest="amp", action="store_false")
    p.add_argument("--fp16-allreduce", action="store_true", default=False)
    p.add_argument("--clip-grad", type=float, default=5.0)
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--synthetic-size", type=int, default=2048)
    p.add_argument("--num-classes", type=int, default=1000)
    p.add_argument("--image-size", type=int, default=224)
    p.add_argument("--log-interval", type=int, default=20)
    p.add_argument("--checkpoint-format", default="./checkpoints/checkpoint-{epoch}.pth.tar")
    p.add_argument("--resume", action="store_true")
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--no-cuda", action="store_true")
    return p


def parse(argv=None):
    args = get_parser().parse_args(argv)
    args.cuda = not args.no_cuda
    return args
