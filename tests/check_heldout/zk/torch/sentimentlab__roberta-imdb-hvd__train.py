"""IMDB sentiment fine-tuning (tiny RoBERTa-style encoder) with Horovod.

    horovodrun -np 4 python train.py -c configs/imdb.ini
"""
import argparse
import configparser

import torch
import horovod.torch as hvd

from src.env import init_env
from src.data import load_imdb, rank_partition, batches
from src.model import SentimentEncoder
from src.optim import build_optimizer, WarmupLinear
from src.checkpointer import Checkpointer


def evaluate(model, test_x, test_y, device, bs=256):
    """Every worker scores the whole test set; the result is the same everywhere."""
    model.eval()
    correct = 0
    with torch.no_grad():
        for i in range(0, len(test_x), bs):
            logits = model(test_x[i:i + bs].to(device))
            correct += (logits.argmax(-1).cpu() == test_y[i:i + bs]).sum().item()
    model.train()
    return correct / len(test_x)


def cli():
    ap = argparse.ArgumentParser()
    ap.add_argument("-c", "--config", default="configs/imdb.ini")
    ap.add_argument("--resume", default=None, help="path of a checkpoint to continue from")
    a = ap.parse_args()
    conf = configparser.ConfigParser()
    conf.read(a.config)
    train(conf, a.resume)


def train(conf, resume=None):
    device = init_env(conf.getint("train", "seed", fallback=0))
    tr = conf["train"]
    train_x, train_y, test_x, test_y, vocab_size = load_imdb(conf["data"]["path"], conf.getint("data", "max_len"))
    train_x, train_y = rank_partition(train_x, train_y, hvd.rank(), hvd.size(), seed=tr.getint("seed"))

    model = SentimentEncoder(vocab_size).to(device)
    bs = tr.getint("batch_size")
    steps_per_epoch = len(train_x) // bs
    optimizer = build_optimizer(model, tr.getfloat("lr"), tr.getfloat("weight_decay"))
    schedule = WarmupLinear(optimizer, tr.getint("warmup_steps"), steps_per_epoch * tr.getint("epochs"))
    ckpt = Checkpointer(conf["train"]["out_dir"])

    first_epoch = 0
    if resume:
        first_epoch = ckpt.load(resume, model, optimizer, schedule)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    loss_fn = torch.nn.CrossEntropyLoss()
    for epoch in range(first_epoch, tr.getint("epochs")):
        for step, (x, y) in enumerate(batches(train_x, train_y, bs, epoch)):
            loss = loss_fn(model(x.to(device)), y.to(device))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            schedule.step()
            if hvd.rank() == 0 and step % 200 == 0:
                print(f"[{epoch}:{step}/{steps_per_epoch}] loss={loss.item():.4f} lr={schedule.lr:.2e}")
        acc = evaluate(model, test_x, test_y, device)
        if hvd.rank() == 0:
            print(f"epoch {epoch} test_acc={acc:.4f}")
        ckpt.save(epoch, model, optimizer, schedule, acc)


if __name__ == "__main__":
    cli()
