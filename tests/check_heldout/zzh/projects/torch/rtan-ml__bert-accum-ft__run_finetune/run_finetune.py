# coding=utf-8
"""Fine-tune a small encoder for sentence classification on a TSV file, data-parallel with Horovod.

Example:
    horovodrun -np 4 -H localhost:4 python run_finetune.py \
        --train_file data/sst2/train.tsv --validation_file data/sst2/dev.tsv \
        --output_dir outputs/sst2 --gradient_accumulation_steps 4 --fp16
"""
import argparse
import logging
import os
import random

import numpy as np
import torch
import horovod.torch as hvd

from ftkit import Trainer, TrainingArguments
from ftkit.data import TsvClassification
from ftkit.modeling import TinyEncoderForSequenceClassification

logger = logging.getLogger(__name__)


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--train_file", required=True)
    p.add_argument("--validation_file", required=True)
    p.add_argument("--output_dir", default="outputs")
    p.add_argument("--max_seq_length", type=int, default=128)
    p.add_argument("--num_labels", type=int, default=2)
    p.add_argument("--per_device_train_batch_size", type=int, default=16)
    p.add_argument("--gradient_accumulation_steps", type=int, default=2)
    p.add_argument("--learning_rate", type=float, default=5e-5)
    p.add_argument("--num_train_epochs", type=int, default=3)
    p.add_argument("--save_steps", type=int, default=500)
    p.add_argument("--gradient_checkpointing", action="store_true")
    p.add_argument("--fp16", action="store_true")
    p.add_argument("--init_checkpoint", default=None, help="pre-trained encoder weights")
    p.add_argument("--seed", type=int, default=42)
    return p.parse_args()


def set_seed(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def main():
    args = parse_args()
    hvd.init()
    logging.basicConfig(format="%(asctime)s - %(levelname)s - %(name)s - %(message)s",
                        level=logging.INFO if hvd.rank() == 0 else logging.WARN)
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda")
    else:
        device = torch.device("cpu")
    set_seed(args.seed)

    train_ds = TsvClassification(args.train_file, args.max_seq_length)
    eval_ds = TsvClassification(args.validation_file, args.max_seq_length)

    model = TinyEncoderForSequenceClassification(num_labels=args.num_labels, max_len=args.max_seq_length)
    if args.init_checkpoint:
        state = torch.load(args.init_checkpoint, map_location="cpu")
        missing, _ = model.load_state_dict(state, strict=False)
        logger.info("loaded %s (missing: %s)", args.init_checkpoint, missing)
    if args.gradient_checkpointing:
        model.gradient_checkpointing_enable()
    model.to(device)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)

    training_args = TrainingArguments(
        output_dir=args.output_dir,
        per_device_train_batch_size=args.per_device_train_batch_size,
        gradient_accumulation_steps=args.gradient_accumulation_steps,
        learning_rate=args.learning_rate,
        num_train_epochs=args.num_train_epochs,
        save_steps=args.save_steps,
        fp16=args.fp16,
    )
    trainer = Trainer(model, training_args, train_ds, eval_ds, device)
    hvd.broadcast_optimizer_state(trainer.optimizer, root_rank=0)
    logger.info("***** Running training: %d examples, %d ranks, %d optimisation steps *****",
                len(train_ds), hvd.size(), trainer.total_steps)
    final_dir = trainer.train()
    if hvd.rank() == 0:
        logger.info("final checkpoint in %s", final_dir)
    os.makedirs(args.output_dir, exist_ok=True)


if __name__ == "__main__":
    main()
