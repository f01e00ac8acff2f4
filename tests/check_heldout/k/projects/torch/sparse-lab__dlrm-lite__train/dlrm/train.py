"""DLRM-lite click-through training.

Run from the repository root:
    horovodrun -np 4 python -m dlrm.train --train day_0.bin --test day_23.bin
"""
import argparse
import os
import time

import horovod.torch as hvd
import torch
import torch.nn.functional as F
from sklearn.metrics import roc_auc_score

from dlrm.data import N_DENSE, N_SPARSE, CriteoBinary, iterate_batches
from dlrm.hvd_utils import gather_predictions, init_horovod
from dlrm.model import DLRM


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--train", default="data/day_0.bin")
    p.add_argument("--test", default="data/day_23.bin")
    p.add_argument("--hash-size", type=int, default=200000)
    p.add_argument("--micro-batch", type=int, default=512)
    p.add_argument("--accum-steps", type=int, default=4)
    p.add_argument("--lr", type=float, default=0.05,
                   help="SGD step for the summed (not averaged) gradient of all workers")
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--save-every", type=int, default=2000, help="optimizer steps between checkpoints")
    p.add_argument("--out", default="runs/dlrm")
    return p.parse_args()


def evaluate(model, rows, device, batch):
    model.eval()
    scores, labels = [], []
    with torch.no_grad():
        for dense, sparse, label in iterate_batches(rows, batch, shuffle=False, seed=0):
            scores.append(torch.sigmoid(model(dense.to(device), sparse.to(device))).cpu())
            labels.append(label)
    model.train()
    return gather_predictions(torch.cat(scores), torch.cat(labels))


def main():
    args = get_args()
    rank, world, device = init_horovod()
    torch.manual_seed(0)

    train_rows = CriteoBinary(args.train).rank_slice(rank, world)
    test_rows = CriteoBinary(args.test).rank_slice(rank, world)

    model = DLRM(N_DENSE, N_SPARSE, args.hash_size).to(device)
    solver = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    # Gradients are summed over workers, so the step already grows with the number of workers.
    solver = hvd.DistributedOptimizer(solver, named_parameters=model.named_parameters(),
                                      backward_passes_per_step=args.accum_steps, op=hvd.Sum)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(solver, root_rank=0)

    # Whole accumulation windows only: a partial window would leave backward passes
    # pending in the DistributedOptimizer at the end of the epoch.
    micro_per_epoch = len(train_rows) // args.micro_batch // args.accum_steps * args.accum_steps
    step = 0
    for epoch in range(args.epochs):
        tic = time.time()
        batches = iterate_batches(train_rows, args.micro_batch, shuffle=True, seed=1000 * epoch + rank)
        solver.zero_grad()
        for i, (dense, sparse, label) in enumerate(batches):
            if i == micro_per_epoch:
                break
            logits = model(dense.to(device), sparse.to(device))
            loss = F.binary_cross_entropy_with_logits(logits, label.to(device)) / args.accum_steps
            loss.backward()
            if (i + 1) % args.accum_steps == 0:
                solver.step()
                solver.zero_grad()
                step += 1
                if step % args.save_every == 0 and rank == 0:
                    os.makedirs(args.out, exist_ok=True)
                    torch.save({"step": step, "model": model.state_dict(),
                                "optimizer": solver.state_dict()}, os.path.join(args.out, "last.pt"))

        scores, labels = evaluate(model, test_rows, device, 8192)
        if rank == 0:
            auc = roc_auc_score(labels.numpy(), scores.numpy())
            ll = F.binary_cross_entropy(scores, labels).item()
            print(f"epoch {epoch}: test AUC {auc:.4f} logloss {ll:.4f} ({time.time() - tic:.0f}s)", flush=True)
    if rank == 0:
        os.makedirs(args.out, exist_ok=True)
        torch.save(model.state_dict(), os.path.join(args.out, "final_model.pt"))


if __name__ == "__main__":
    main()
