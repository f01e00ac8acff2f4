"""Fine-tune a small LSTM summariser on CNN/DM-style jsonl with Horovod.

Usage: horovodrun -np 4 python run_summarization.py --train_file data/train.jsonl --eval_file data/val.jsonl
"""
import argparse
import logging
import os

import torch
import horovod.torch as hvd

from summarizer import Trainer, TrainingArguments
from summarizer.data import CharVocab, SummaryDataset, make_loader
from summarizer.modeling import Seq2SeqSummarizer


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--train_file", default="data/train.jsonl")
    ap.add_argument("--eval_file", default="data/val.jsonl")
    ap.add_argument("--vocab_file", default="data/vocab.json")
    ap.add_argument("--output_dir", default="runs/summ")
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--batch_size", type=int, default=16)
    ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--resume", action="store_true")
    return ap.parse_args()


def main():
    cli = parse()
    hvd.init()
    logging.basicConfig(level=logging.INFO)
    use_cuda = torch.cuda.is_available()
    if use_cuda:
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda", hvd.local_rank()) if use_cuda else torch.device("cpu")
    torch.manual_seed(42)

    if hvd.rank() == 0 and not os.path.exists(cli.vocab_file):
        with open(cli.train_file) as f:
            CharVocab.load_or_build(cli.vocab_file, [line for line in f])
    hvd.barrier()
    vocab = CharVocab.load_or_build(cli.vocab_file, [])

    train_ds = SummaryDataset(cli.train_file, vocab)
    eval_ds = SummaryDataset(cli.eval_file, vocab)
    train_loader = make_loader(train_ds, cli.batch_size, hvd.rank(), hvd.size(), shuffle=True)
    eval_loader = make_loader(eval_ds, cli.batch_size, hvd.rank(), hvd.size(), shuffle=False)

    args = TrainingArguments(output_dir=cli.output_dir, num_train_epochs=cli.epochs,
                             per_device_batch_size=cli.batch_size,
                             learning_rate=cli.lr * hvd.size())
    model = Seq2SeqSummarizer(len(vocab.itos)).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate, weight_decay=0.01)

    start_epoch = 0
    ckpt = os.path.join(cli.output_dir, "last.pt")
    if cli.resume and os.path.exists(ckpt):
        state = torch.load(ckpt, map_location="cpu")
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        start_epoch = state["epoch"] + 1

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

    trainer = Trainer(model, optimizer, args, vocab, train_loader, eval_loader, device,
                      is_main=hvd.rank() == 0)
    trainer.train(start_epoch=start_epoch)


if __name__ == "__main__":
    main()
