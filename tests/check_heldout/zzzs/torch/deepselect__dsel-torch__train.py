import os
import time
import logging

import numpy as np
import torch
import torch.nn.functional as F
import horovod.torch as hvd

from dsel import options
from dsel.utils import init_horovod, AverageMeter, log_rank0
from dsel.data import build_datasets, labeled_loader, unlabeled_loader, test_loader
from dsel.nets import get_net
from dsel.saver import Saver

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")


def run_epoch(model, optimizer, loader, device):
    model.train()
    meter = AverageMeter("loss")
    for xb, yb in loader:
        xb, yb = xb.to(device), yb.to(device)
        optimizer.zero_grad()
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        optimizer.step()
        meter.update(loss.item(), xb.size(0))
    return meter.avg


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    correct = torch.zeros(1, dtype=torch.float64)
    seen = torch.zeros(1, dtype=torch.float64)
    for xb, yb in loader:
        pred = model(xb.to(device)).argmax(1).cpu()
        correct += (pred == yb).sum()
        seen += yb.numel()
    correct = hvd.allreduce(correct, op=hvd.Sum, name="ev_correct")
    seen = hvd.allreduce(seen, op=hvd.Sum, name="ev_seen")
    return (correct / seen).item()


@torch.no_grad()
def entropy_query(model, ds, pool, k, device, bs):
    model.eval()
    ents = []
    for (xb,) in unlabeled_loader(ds, pool, bs):
        p = F.softmax(model(xb.to(device)), 1)
        ents.append(-(p * p.clamp_min(1e-12).log()).sum(1).cpu())
    ents = torch.cat(ents)
    top = torch.topk(ents, k).indices.tolist()
    return [pool[i] for i in top]


def main():
    args = options.parse()
    device = init_horovod(args.cuda)
    train_ds, test_ds = build_datasets(args.dataset, args.data_root)
    saver = Saver(args.exp_dir)

    rs = np.random.RandomState(args.seed)
    perm = rs.permutation(len(train_ds)).tolist()
    labeled, pool = perm[:args.n_init], perm[args.n_init:]

    model = get_net(args.arch, train_ds).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum,
                                weight_decay=args.wd)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

    for rnd in range(args.n_rounds):
        tic = time.time()
        if rnd > 0 and args.reinit:
            # fresh weights each round
            model = get_net(args.arch, train_ds).to(device)
            optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum,
                                        weight_decay=args.wd)
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(optimizer, root_rank=0)

        for ep in range(args.epochs):
            loader = labeled_loader(train_ds, labeled, args.batch_size, epoch=ep)
            tr_loss = run_epoch(model, optimizer, loader, device)
        tr_loss = hvd.allreduce(torch.tensor(tr_loss), name="tr_loss").item()
        acc = evaluate(model, test_loader(test_ds, args.batch_size), device)
        log_rank0("round %d | n_lab %d | loss %.4f | acc %.4f | %.0fs", rnd, len(labeled), tr_loss, acc,
                  time.time() - tic)
        if hvd.rank() == 0:
            saver.save_round(rnd, model, optimizer, labeled, pool, acc)

        new = entropy_query(model, train_ds, pool, args.n_query, device, args.batch_size)
        labeled = labeled + new
        s = set(new)
        pool = [p for p in pool if p not in s]

    if hvd.rank() == 0:
        saver.write_table()


if __name__ == "__main__":
    main()
