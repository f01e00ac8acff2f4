import argparse


def get_parser():
    p = argparse.ArgumentParser("wgan-gp (horovod)")
    p.add_argument("--dataroot", default="./data/celeba64")
    p.add_argument("--dataset", default="folder", choices=["folder", "fake"])
    p.add_argument("--img_size", type=int, default=64)
    p.add_argument("--nz", type=int, default=128)
    p.add_argument("--ngf", type=int, default=64)
    p.add_argument("--ndf", type=int, default=64)
    p.add_argument("--batch_size", type=int, default=64, help="per worker")
    p.add_argument("--epochs", type=int, default=50)
    p.add_argument("--lr_g", type=float, default=1e-4)
    p.add_argument("--lr_d", type=float, default=4e-4)  # TTUR
    p.add_argument("--beta1", type=float, default=0.0)
    p.add_argument("--beta2", type=float, default=0.9)
    p.add_argument("--n_critic", type=int, default=5)
    p.add_argument("--lambda_gp", type=float, default=10.0)
    p.add_argument("--ema_decay", type=float, default=0.999)
    p.add_argument("--no_scale_lr", action="store_true")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--out", default="runs/wgangp")
    p.add_argument("--resume", default="")
    p.add_argument("--sample_every", type=int, default=1)
    p.add_argument("--no_cuda", action="store_true")
    return p


def parse(argv=None):
    opt = get_parser().parse_args(argv)
    return opt
