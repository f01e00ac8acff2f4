import argparse


def build_parser():
    p = argparse.ArgumentParser(description="vision trainer service")
    p.add_argument("--data-dir", default="/data/defects/imagefolder")
    p.add_argument("--work-dir", default="runs/defects")
    p.add_argument("--arch", default="resnet18", choices=["resnet18", "resnet34", "mobilenet_v3_small"])
    p.add_argument("--num-classes", type=int, default=6)
    p.add_argument("--batch-size", type=int, default=64, help="images per worker")
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--resume", default="auto", help="'auto', 'none' or a checkpoint path")
    p.add_argument("--hooks", default="checkpoint,metrics")
    return p


def parse_args(argv=None):
    return build_parser().parse_args(argv)
