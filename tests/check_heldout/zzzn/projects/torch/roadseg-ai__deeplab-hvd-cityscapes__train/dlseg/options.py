import argparse


def parse_opts(argv=None):
    p = argparse.ArgumentParser(description="DeepLabV3+ (lite) on Cityscapes, horovod")
    p.add_argument("--data-root", default="./data/cityscapes")
    p.add_argument("--fake-data", action="store_true", help="random tensors instead of cityscapes (smoke test)")
    p.add_argument("--crop-size", type=int, default=512)
    p.add_argument("--base-size", type=int, default=1024)
    p.add_argument("--num-classes", type=int, default=19)
    p.add_argument("--batch-size", type=int, default=4, help="per GPU")
    p.add_argument("--val-batch-size", type=int, default=1)
    p.add_argument("--epochs", type=int, default=120)
    p.add_argument("--base-lr", type=float, default=0.01, help="lr for ONE gpu, scaled by world size")
    p.add_argument("--power", type=float, default=0.9)
    p.add_argument("--momentum", type=float, default=0.9)
    p.add_argument("--wd", type=float, default=1e-4)
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--eval-every", type=int, default=5)
    p.add_argument("--no-sliding", dest="sliding", action="store_false",
                   help="evaluate on the whole image instead of sliding windows")
    p.add_argument("--fp16-allreduce", action="store_true")
    p.add_argument("--resume", default="")
    p.add_argument("--out-dir", default="./runs/deeplab")
    p.add_argument("--seed", type=int, default=304)
    return p.parse_args(argv)
