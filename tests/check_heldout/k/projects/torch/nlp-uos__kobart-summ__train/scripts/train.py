"""Fine-tune KoBART for summarisation on several GPUs.

Example:
    mpirun -np 4 python scripts/train.py --train_file data/train.jsonl --dev_file data/dev.jsonl
"""
import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from kobart.trainer import Seq2SeqTrainer  # noqa: E402


def get_parser():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_name", default="gogamza/kobart-base-v2")
    parser.add_argument("--train_file", default="data/train.jsonl")
    parser.add_argument("--dev_file", default="data/dev.jsonl")
    parser.add_argument("--output_dir", default="outputs/kobart-summ")
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--batch_size", type=int, default=16)
    parser.add_argument("--lr", type=float, default=3e-5)
    parser.add_argument("--weight_decay", type=float, default=0.01)
    parser.add_argument("--warmup_ratio", type=float, default=0.06)
    parser.add_argument("--max_grad_norm", type=float, default=1.0)
    parser.add_argument("--fp16", action="store_true", help="mixed precision with torch.cuda.amp")
    parser.add_argument("--log_every", type=int, default=50)
    parser.add_argument("--seed", type=int, default=42)
    return parser


if __name__ == "__main__":
    Seq2SeqTrainer(get_parser().parse_args()).fit()
