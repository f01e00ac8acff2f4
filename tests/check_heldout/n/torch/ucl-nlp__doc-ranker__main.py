"""Train a dual-encoder passage ranker with in-batch negatives on N Horovod workers.

    horovodrun -np 4 python main.py --train data/train.jsonl --dev data/dev.jsonl
"""
import argparse
import os

import horovod.torch as hvd
import torch

from ranker.data import batches, partition, read_pairs
from ranker.engine import make_optimizer, train_one_epoch
from ranker.evaluate import mrr_at_k
from ranker.model import DualEncoder
from ranker.utils import EarlyStopping, Timer

hvd.init()
IS_MAIN = hvd.rank() == 0

parser = argparse.ArgumentParser()
parser.add_argument("--train", default="data/train.jsonl")
parser.add_argument("--dev", default="data/dev.jsonl")
parser.add_argument("--vocab-size", type=int, default=2 ** 18)
parser.add_argument("--dim", type=int, default=256)
parser.add_argument("--batch-size", type=int, default=64)
parser.add_argument("--lr", type=float, default=5e-5)
parser.add_argument("--epochs", type=int, default=20)
parser.add_argument("--patience", type=int, default=3)
parser.add_argument("--seed", type=int, default=13)
parser.add_argument("--fp16-allreduce", action="store_true")
parser.add_argument("--save", default="checkpoints/ranker.pt")


def main(args):
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda")
    else:
        device = torch.device("cpu")
    torch.manual_seed(args.seed)

    train_pairs = partition(read_pairs(args.train, args.vocab_size), hvd.rank(), hvd.size(), args.seed)
    dev_pairs = read_pairs(args.dev, args.vocab_size) if IS_MAIN else None

    model = DualEncoder(args.vocab_size, args.dim).to(device)
    optimizer = make_optimizer(model, args.lr, fp16_allreduce=args.fp16_allreduce)
    stopper = EarlyStopping(args.patience)

    for epoch in range(args.epochs):
        with Timer() as t:
            loss = train_one_epoch(model, optimizer, batches(train_pairs, args.batch_size, args.seed + epoch), device)
        # every worker ran the same number of equal-sized batches, so the mean of the means is the global mean
        loss = hvd.allreduce(torch.tensor(loss), name="train_loss").item()

        stop = False
        if IS_MAIN:
            mrr = mrr_at_k(model, dev_pairs, device)
            improved, stop = stopper.step(mrr)
            print(f"epoch {epoch}: train loss {loss:.4f} dev MRR@10 {mrr:.4f} ({t.elapsed:.0f}s)", flush=True)
            if improved:
                os.makedirs(os.path.dirname(args.save) or ".", exist_ok=True)
                torch.save({"model": model.state_dict(), "epoch": epoch, "mrr": mrr}, args.save)
        if hvd.broadcast_object(stop, root_rank=0, name="early_stop"):
            break


if __name__ == "__main__":
    main(parser.parse_args())
