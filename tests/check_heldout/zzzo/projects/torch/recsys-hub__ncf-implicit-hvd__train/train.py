# NeuMF (He et al. 2017) on ml-20m / pinterest, horovod.
# horovodrun -np 4 python train.py --data data/ml-20m.npy --n-users 138493 --n-items 26744
import argparse

import numpy as np
import torch
import horovod.torch as hvd

from ncf.utils import init_distributed, logger
from ncf.sampler import load_ratings, user_partition, NegativeSampler
from ncf.model import NeuMF
from ncf.trainer import NCFTrainer

parser = argparse.ArgumentParser(description="NCF horovod")
parser.add_argument("--data", default="data/ml-20m.npy")
parser.add_argument("--n-users", type=int, default=138493)
parser.add_argument("--n-items", type=int, default=26744)
parser.add_argument("--factors", type=int, default=64)
parser.add_argument("--layers", type=int, nargs="+", default=[256, 128, 64])
parser.add_argument("--negatives", type=int, default=4, help="negatives per positive")
parser.add_argument("--batch-size", type=int, default=2048)
parser.add_argument("--lr", type=float, default=0.0005)
parser.add_argument("--epochs", type=int, default=20)
parser.add_argument("--seed", type=int, default=0)
parser.add_argument("--out", default="runs/ncf")
parser.add_argument("--no-cuda", action="store_true")


def main():
    args = parser.parse_args()
    device = init_distributed(args.no_cuda)
    torch.manual_seed(args.seed)

    train, test = load_ratings(args.data)
    train, test = user_partition(train, test, hvd.rank(), hvd.size())
    steps = int(hvd.allreduce(torch.tensor(len(train) // args.batch_size), op=hvd.Min, name="steps").item())
    logger.info("%d train rows on rank 0, %d steps/epoch", len(train), steps)

    model = NeuMF(args.n_users, args.n_items, args.factors, tuple(args.layers)).to(device)
    lr = args.lr * hvd.size()
    # sparse embedding grads -> SparseAdam; dense layers -> Adam through horovod
    sparse_opt = torch.optim.SparseAdam([p for _, p in model.embedding_named_parameters()], lr=lr)
    dense_opt = torch.optim.Adam([p for _, p in model.dense_named_parameters()], lr=lr)
    dense_opt = hvd.DistributedOptimizer(dense_opt, named_parameters=model.dense_named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)

    sampler = NegativeSampler(args.n_items, args.num_neg, seed=args.seed + hvd.rank())
    trainer = NCFTrainer(model, [sparse_opt, dense_opt], sampler, device, args.n_items, args.out)

    best = 0.0
    for epoch in range(args.epochs):
        loss, sec = trainer.train_epoch(train, args.batch_size, steps)
        hr = trainer.hit_rate(test)
        logger.info("epoch %d loss %.4f HR@10 %.4f (%.1fs)", epoch, loss, hr, sec)
        if hr > best:
            best = hr
            trainer.save(epoch)


if __name__ == "__main__":
    main()
