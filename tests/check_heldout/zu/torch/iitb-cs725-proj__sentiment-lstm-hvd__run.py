# CS725 course project: IMDB sentiment with a BiLSTM, multi-GPU via horovod
# usage: horovodrun -np 4 -H localhost:4 python run.py --train data/imdb_train.tsv --dev data/imdb_dev.tsv
import argparse
import os

import torch
import horovod.torch as hvd

from textcls import LSTMClassifier
from textcls.data import make_loaders
from textcls.trainer import Trainer, get_device

parser = argparse.ArgumentParser()
parser.add_argument("--train", default="data/imdb_train.tsv")
parser.add_argument("--dev", default="data/imdb_dev.tsv")
parser.add_argument("--epochs", type=int, default=6)
parser.add_argument("--bs", type=int, default=64)
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--max-len", type=int, default=256)
parser.add_argument("--ckpt-dir", default="ckpt")
parser.add_argument("--resume", default="auto", help="'auto' = continue from <ckpt-dir>/last.pt if it exists")
args = parser.parse_args()

hvd.init()
torch.manual_seed(725)
device = get_device()

vocab, train_loader, dev_loader, train_sampler = make_loaders(args.train, args.dev, args.bs, args.max_len)
model = LSTMClassifier(len(vocab)).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=args.lr * hvd.size())
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

# make sure everybody starts from the same weights
hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)

start_epoch, best = 0, 0.0
last = os.path.join(args.ckpt_dir, "last.pt")
if args.resume == "auto" and os.path.exists(last) and hvd.rank() == 0:
    ckpt = torch.load(last, map_location="cpu")
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optim"])
    start_epoch, best = ckpt["epoch"] + 1, ckpt["best"]
    print(f"resuming from epoch {start_epoch}")
start_epoch = hvd.broadcast_object(start_epoch, root_rank=0, name="start_epoch")
best = hvd.broadcast_object(best, root_rank=0, name="best")

trainer = Trainer(model, optimizer, device, args.ckpt_dir)
for epoch in range(start_epoch, args.epochs):
    train_sampler.set_epoch(epoch)
    loss = trainer.fit_epoch(train_loader)
    acc = trainer.accuracy(dev_loader)
    best = max(best, acc)
    if hvd.rank() == 0:
        print(f"epoch {epoch}: loss {loss:.4f} dev acc {acc:.4f} (best {best:.4f})")
    trainer.save(epoch, best)
