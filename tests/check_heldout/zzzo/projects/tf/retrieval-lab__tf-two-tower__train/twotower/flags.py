import argparse


def parse_flags(argv=None):
    p = argparse.ArgumentParser(description="two-tower retrieval (TF2)")
    p.add_argument("--data_dir", default="/data/retrieval/logs")
    p.add_argument("--train_days", type=int, default=14)
    p.add_argument("--user_buckets", type=int, default=5_000_000)
    p.add_argument("--item_buckets", type=int, default=1_000_000)
    p.add_argument("--dim", type=int, default=64)
    p.add_argument("--batch_size", type=int, default=1024)
    p.add_argument("--temperature", type=float, default=0.05)
    p.add_argument("--emb_lr", type=float, default=0.1)
    p.add_argument("--lr", type=float, default=0.001)
    p.add_argument("--steps", type=int, default=50000)
    p.add_argument("--eval_every", type=int, default=5000)
    p.add_argument("--export_dir", default="./export")
    p.add_argument("--emb_shards", type=int, default=16)
    p.add_argument("--horovod", action="store_true", help="multi-worker training with horovod")
    return p.parse_args(argv)
