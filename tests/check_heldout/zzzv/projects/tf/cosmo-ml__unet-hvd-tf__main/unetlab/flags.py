import argparse


def get_flags(argv=None):
    p = argparse.ArgumentParser("unet-hvd-tf")
    p.add_argument("--mode", default="custom", choices=["custom", "fit"],
                   help="custom GradientTape loop (default) or keras model.fit")
    p.add_argument("--img", type=int, default=64)
    p.add_argument("--n_train", type=int, default=512)
    p.add_argument("--n_val", type=int, default=64)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--epochs", type=int, default=50)
    p.add_argument("--lr", type=float, default=5e-4)
    p.add_argument("--base_filters", type=int, default=16)
    p.add_argument("--ckpt_dir", default="./unet_ckpt")
    p.add_argument("--save_every", type=int, default=5)
    return p.parse_args(argv)
