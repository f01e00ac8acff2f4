#!/usr/bin/env python
# Fine-tune / train a small encoder classifier on GLUE-style TSV data.
#   horovodrun -np 4 -H localhost:4 python run_classifier.py --config configs/sst2.json
import argparse
import json
import os
import random

import horovod.torch as hvd
import numpy as np
import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from textcls import ClassifierConfig, Trainer
from textcls.data import TextDataset, WordTokenizer, collate, read_tsv
from textcls.model import EncoderClassifier


def set_seed(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default=None)
    parser.add_argument("--do-eval", action="store_true")
    args = parser.parse_args()
    cfg = ClassifierConfig.from_json(args.config) if args.config else ClassifierConfig()

    hvd.init()
    torch.cuda.set_device(hvd.local_rank())
    set_seed(cfg.seed)

    train_texts, train_labels = read_tsv(cfg.train_file)
    tokenizer = WordTokenizer(train_texts, cfg.vocab_size)
    train_ds = TextDataset(train_texts, train_labels, tokenizer, cfg.max_seq_len)
    dev_ds = TextDataset(*read_tsv(cfg.dev_file), tokenizer, cfg.max_seq_len)

    train_sampler = DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.rank(), seed=cfg.seed)
    train_dl = DataLoader(train_ds, batch_size=cfg.per_device_batch_size, sampler=train_sampler,
                          collate_fn=collate, num_workers=2)
    dev_sampler = DistributedSampler(dev_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    dev_dl = DataLoader(dev_ds, batch_size=64, sampler=dev_sampler, collate_fn=collate)

    model = EncoderClassifier(cfg).cuda()
    trainer = Trainer(model, cfg, steps_per_epoch=len(train_dl))

    for epoch in range(cfg.num_epochs):
        train_sampler.set_epoch(epoch)
        trainer.train_epoch(train_dl)
        if args.do_eval:
            metrics = trainer.evaluate(dev_dl)
            if hvd.rank() == 0:
                print(json.dumps({"epoch": epoch, **metrics}))
    trainer.save_checkpoint("final")
    if hvd.rank() == 0:
        with open(os.path.join(cfg.output_dir, "vocab.txt"), "w") as f:
            f.write("\n".join(tokenizer.vocab))


if __name__ == "__main__":
    main()
