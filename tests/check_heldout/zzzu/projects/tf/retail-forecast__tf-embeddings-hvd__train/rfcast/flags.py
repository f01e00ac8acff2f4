import argparse


def parse(argv=None):
    p = argparse.ArgumentParser(description="store/item demand forecasting with entity embeddings")
    p.add_argument("--train_csv", default="data/train.csv")
    p.add_argument("--valid_days", type=int, default=28)
    p.add_argument("--batch_size", type=int, default=2048, help="per worker")
    p.add_argument("--lr", type=float, default=5e-4, help="single-worker lr, scaled by world size")
    p.add_argument("--epochs", type=int, default=8)
    p.add_argument("--ckpt_dir", default="ckpt")
    p.add_argument("--keep", type=int, default=3)
    p.add_argument("--log_every", type=int, default=200)
    p.add_argument("--emb_dims", default="store:10,item:32,dow:3,month:4")
    return p.parse_args(argv)
