"""Fine-tune a small wav2vec-style encoder for speaker-intent classification.

    horovodrun -np 8 python finetune.py --pretrained ckpt/w2v_small_ssl.pt --accum 2
"""
import argparse

from w2v.dist import init_distributed
from w2v.trainer import Trainer, TrainerArgs


def cli():
    ap = argparse.ArgumentParser()
    ap.add_argument("--manifest", default="data/intents/manifest.tsv")
    ap.add_argument("--pretrained", default=None)
    ap.add_argument("--out", default="exp/intent")
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--batch-size", type=int, default=8)
    ap.add_argument("--accum", type=int, default=1, help="micro-batches per optimizer step")
    ap.add_argument("--lr", type=float, default=5e-5)
    ap.add_argument("--warmup-steps", type=int, default=1000)
    ap.add_argument("--fp16", action="store_true")
    return ap.parse_args()


if __name__ == "__main__":
    ns = cli()
    env = init_distributed()
    trainer = Trainer(TrainerArgs(**vars(ns)), env)
    trainer.fit()
