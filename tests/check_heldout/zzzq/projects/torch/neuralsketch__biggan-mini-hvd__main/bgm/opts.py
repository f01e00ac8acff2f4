import argparse


def get_args(argv=None):
    p = argparse.ArgumentParser(description="BigGAN-mini, horovod")
    p.add_argument("--data_root", type=str, default="data/imagenet32")
    p.add_argument("--n_classes", type=int, default=100)
    p.add_argument("--img_size", type=int, default=32)
    p.add_argument("--dim_z", type=int, default=120)
    p.add_argument("--G_ch", type=int, default=64)
    p.add_argument("--D_ch", type=int, default=64)
    p.add_argument("--batch_size", type=int, default=128)
    p.add_argument("--num_epochs", type=int, default=60)
    p.add_argument("--G_lr", type=float, default=5e-5)
    p.add_argument("--D_lr", type=float, default=2e-4)
    p.add_argument("--num_D_steps", type=int, default=2)
    p.add_argument("--sync_d", action="store_true",
                   help="also allreduce D gradients (slower; D is fine local)")
    p.add_argument("--ema_decay", type=float, default=0.9999)
    p.add_argument("--ema_start", type=int, default=2000)
    p.add_argument("--eval_batches", type=int, default=20)
    p.add_argument("--weights_root", type=str, default="weights")
    p.add_argument("--samples_root", type=str, default="samples")
    p.add_argument("--resume", action="store_true")
    return p.parse_args(argv)
