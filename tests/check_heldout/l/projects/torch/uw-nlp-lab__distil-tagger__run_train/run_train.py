#!/usr/bin/env python
"""Fine-tune a DistilBERT tagger (NER / chunking) with Horovod.

    horovodrun -np 8 -H gpu01:4,gpu02:4 python run_train.py \
        --train_file data/conll03/train.txt --output_dir runs/ner-distil
"""
import argparse
import functools
import json
import logging
import os
import random

import numpy as np
import torch
import horovod.torch as hvd
from transformers import AutoTokenizer

from tagger import Trainer, build_tagger, collate_batch, load_splits, read_conll


def set_seed(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--model_name_or_path", default="distilbert-base-cased")
    p.add_argument("--train_file", required=True)
    p.add_argument("--labels", default=None, help="file with one tag per line")
    p.add_argument("--output_dir", required=True)
    p.add_argument("--dev_fraction", type=float, default=0.1)
    p.add_argument("--max_seq_length", type=int, default=128)
    p.add_argument("--per_device_batch_size", type=int, default=16)
    p.add_argument("--gradient_accumulation_steps", type=int, default=2)
    p.add_argument("--learning_rate", type=float, default=3e-5)
    p.add_argument("--weight_decay", type=float, default=0.01)
    p.add_argument("--warmup_ratio", type=float, default=0.06)
    p.add_argument("--max_grad_norm", type=float, default=1.0)
    p.add_argument("--num_train_epochs", type=int, default=5)
    p.add_argument("--logging_steps", type=int, default=50)
    p.add_argument("--save_steps", type=int, default=1000)
    p.add_argument("--fp16_allreduce", action="store_true")
    p.add_argument("--seed", type=int, default=13)
    return p.parse_args()


def main():
    args = parse_args()
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())

    logging.basicConfig(
        format=f"%(asctime)s [rank {hvd.rank()}] %(name)s: %(message)s",
        level=logging.INFO if hvd.rank() == 0 else logging.WARN)
    # different dropout masks / shuffles on every worker
    set_seed(args.seed + hvd.rank())

    if args.labels:
        with open(args.labels) as f:
            labels = [l.strip() for l in f if l.strip()]
    else:
        labels = sorted({t for _, tags in read_conll(args.train_file) for t in tags})
    label2id = {l: i for i, l in enumerate(labels)}

    tokenizer = AutoTokenizer.from_pretrained(args.model_name_or_path)
    train_set, dev_set = load_splits(args.train_file, tokenizer, label2id,
                                     dev_fraction=args.dev_fraction, max_len=args.max_seq_length)
    model = build_tagger(args.model_name_or_path, labels)
    collate = functools.partial(collate_batch, pad_id=tokenizer.pad_token_id)

    trainer = Trainer(model, args, train_set, dev_set, collate, id2label=dict(enumerate(labels)))
    if hvd.rank() == 0:
        os.makedirs(args.output_dir, exist_ok=True)
        with open(os.path.join(args.output_dir, "run_args.json"), "w") as f:
            json.dump(vars(args), f, indent=2)
    trainer.train()
    trainer.save("final.pt")
    if hvd.rank() == 0:
        tokenizer.save_pretrained(args.output_dir)


if __name__ == "__main__":
    main()
