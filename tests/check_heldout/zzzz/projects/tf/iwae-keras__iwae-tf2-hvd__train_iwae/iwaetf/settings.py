import argparse

p = argparse.ArgumentParser(description="IWAE in TF2 (horovod)")
p.add_argument("--data", default="data/omniglot.npz")
p.add_argument("--k", type=int, default=50)
p.add_argument("--k_test", type=int, default=5000)
p.add_argument("--batch_size", type=int, default=20)
p.add_argument("--epochs", type=int, default=1000)
p.add_argument("--lr", type=float, default=1e-3)
p.add_argument("--latent", type=int, default=50)
p.add_argument("--beta_warmup_epochs", type=int, default=0, help="0 disables KL warmup (IWAE paper)")
p.add_argument("--test_every", type=int, default=50)
p.add_argument("--save_dir", default="models")
p.add_argument("--use_fp16_allreduce", action="store_true")


def get():
    return p.parse_args()
