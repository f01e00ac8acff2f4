import argparse


def parse_options(argv=None):
    p = argparse.ArgumentParser("pix2pix (tf2, horovod)")
    p.add_argument("--train_dir", default="datasets/facades/train")
    p.add_argument("--val_dir", default="datasets/facades/val")
    p.add_argument("--img_size", type=int, default=256)
    p.add_argument("--batch_size", type=int, default=1)
    p.add_argument("--epochs", type=int, default=200)
    p.add_argument("--lr_g", type=float, default=2e-4)
    p.add_argument("--lr_d", type=float, default=2e-4)
    p.add_argument("--lambda_l1", type=float, default=100.0)
    p.add_argument("--checkpoint_dir", default="./training_checkpoints")
    p.add_argument("--sample_dir", default="./samples")
    p.add_argument("--synthetic", action="store_true")
    return p.parse_args(argv)
