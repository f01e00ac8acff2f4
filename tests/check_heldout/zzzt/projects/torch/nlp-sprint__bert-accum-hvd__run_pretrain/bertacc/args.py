import argparse


def parse_args(argv=None):
    ap = argparse.ArgumentParser("mini-BERT MLM pretraining, horovod + amp")
    ap.add_argument("--shard-dir", default=None, help="dir of *.pt token shards; none -> random")
    ap.add_argument("--num-shards", type=int, default=16)
    ap.add_argument("--vocab", type=int, default=8000)
    ap.add_argument("--seq-len", type=int, default=128)
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--train-batch-size", type=int, default=32, help="per-rank micro batch")
    ap.add_argument("--gradient-accumulation-steps", type=int, default=4)
    ap.add_argument("--learning-rate", type=float, default=1e-4)
    ap.add_argument("--warmup-proportion", type=float, default=0.01)
    ap.add_argument("--max-steps", type=int, default=10000)
    ap.add_argument("--fp16", action="store_true", help="torch.cuda.amp autocast + GradScaler")
    ap.add_argument("--allreduce-post-accumulation-fp16", action="store_true")
    ap.add_argument("--max-grad-norm", type=float, default=1.0)
    ap.add_argument("--log-freq", type=int, default=25)
    ap.add_argument("--save-steps", type=int, default=1000)
    ap.add_argument("--output-dir", default="./results/mlm")
    ap.add_argument("--seed", type=int, default=42)
    return ap.parse_args(argv)
