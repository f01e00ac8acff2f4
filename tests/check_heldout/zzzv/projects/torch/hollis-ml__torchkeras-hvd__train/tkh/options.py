import argparse

DEFAULTS = dict(
    batch_size=64,
    epochs=10,
    lr=0.01,
    momentum=0.9,
    wd=5e-4,
    warmup_epochs=2,
    num_classes=10,
    save_dir="./runs/tkh",
)


def get_parser():
    p = argparse.ArgumentParser("torchkeras-hvd")
    p.add_argument("--data-dir", default=None, help="folder with train.pt/val.pt, random data if not given")
    p.add_argument("--batch-size", type=int, default=DEFAULTS["batch_size"])
    p.add_argument("--epochs", type=int, default=DEFAULTS["epochs"])
    p.add_argument("--lr", type=float, default=DEFAULTS["lr"], help="lr for ONE worker")
    p.add_argument("--momentum", type=float, default=DEFAULTS["momentum"])
    p.add_argument("--wd", type=float, default=DEFAULTS["wd"])
    p.add_argument("--warmup-epochs", type=int, default=DEFAULTS["warmup_epochs"])
    p.add_argument("--num-classes", type=int, default=DEFAULTS["num_classes"])
    p.add_argument("--save-dir", default=DEFAULTS["save_dir"])
    p.add_argument("--fp16-allreduce", action="store_true")
    p.add_argument("--no-cuda", action="store_true")
    p.add_argument("--seed", type=int, default=42)
    return p


def parse(argv=None):
    return get_parser().parse_args(argv)
