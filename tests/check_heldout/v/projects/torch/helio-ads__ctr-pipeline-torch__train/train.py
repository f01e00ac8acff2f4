"""DCN click-through model, PyTorch port of the Keras pipeline.

    horovodrun -np 8 python train.py --train-glob '/data/ctr/npz/train-*.npz'
"""
import os

import horovod.torch as hvd
import torch
import torch.nn.functional as F

from ctrtorch.config import get_config
from ctrtorch.data import make_loader
from ctrtorch.metrics import evaluate
from ctrtorch.model import DCN


def main():
    cfg = get_config()
    hvd.init()
    torch.manual_seed(42)
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    train_loader, train_sampler = make_loader(cfg.train_glob, cfg.num_buckets, cfg.batch_size,
                                              training=True, workers=cfg.workers)
    eval_loader, _ = make_loader(cfg.eval_glob, cfg.num_buckets, cfg.batch_size,
                                 training=False, workers=cfg.workers)
    num_dense = train_loader.dataset.tensors[0].shape[1]
    num_sparse = train_loader.dataset.tensors[1].shape[1]

    model = DCN(num_dense, num_sparse, cfg.num_buckets, cfg.embed_dim).to(device)
    dense_named = [(n, p) for n, p in model.named_parameters() if not n.startswith("embed.")]

    # Embedding rows get sparse gradients: SparseAdam for the table, Adam for the rest.
    sparse_opt = torch.optim.SparseAdam(list(model.embed.parameters()), lr=cfg.lr * hvd.size())
    dense_opt = torch.optim.Adam([p for _, p in dense_named], lr=cfg.lr * hvd.size())
    dense_opt = hvd.DistributedOptimizer(dense_opt, named_parameters=dense_named)

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(dense_opt, root_rank=0)

    for epoch in range(cfg.epochs):
        model.train()
        train_sampler.set_epoch(epoch)
        for step, (dense, sparse, click) in enumerate(train_loader):
            dense, sparse, click = dense.to(device), sparse.to(device), click.to(device)
            sparse_opt.zero_grad()
            dense_opt.zero_grad()
            loss = F.binary_cross_entropy_with_logits(model(dense, sparse), click)
            loss.backward()
            dense_opt.step()
            sparse_opt.step()
            if step % 200 == 0 and hvd.rank() == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f}")

        eval_loss, eval_acc = evaluate(model, eval_loader, device)
        if hvd.rank() == 0:
            print(f"epoch {epoch}: eval logloss {eval_loss:.4f} acc {eval_acc:.4f}")
            os.makedirs(cfg.out_dir, exist_ok=True)
            torch.save({"epoch": epoch, "model": model.state_dict(),
                        "dense_opt": dense_opt.state_dict(), "sparse_opt": sparse_opt.state_dict()},
                       os.path.join(cfg.out_dir, f"dcn-epoch{epoch}.pt"))


if __name__ == "__main__":
    main()
