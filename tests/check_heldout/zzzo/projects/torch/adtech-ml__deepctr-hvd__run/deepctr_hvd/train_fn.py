"""The function every horovod worker runs (see run.py)."""
import time

import numpy as np
import torch
import torch.nn.functional as F


def _auc(y, p):
    o = np.argsort(p)
    y = y[o]
    npos = y.sum()
    nneg = len(y) - npos
    if npos == 0 or nneg == 0:
        return 0.5
    return float((np.arange(1, len(y) + 1)[y > 0.5].sum() - npos * (npos + 1) / 2.0) / (npos * nneg))


def train(opts):
    import horovod.torch as hvd
    from deepctr_hvd import data, checkpoint
    from deepctr_hvd.model import FieldEmbeddingMLP

    hvd.init()
    cuda = opts.use_cuda and torch.cuda.is_available()
    if cuda:
        torch.cuda.set_device(hvd.local_rank())
    dev = torch.device("cuda" if cuda else "cpu")

    train_parts = data.parts_for_rank(data.list_parts(opts.train_glob), hvd.rank(), hvd.size())
    valid_parts = data.parts_for_rank(data.list_parts(opts.valid_glob), hvd.rank(), hvd.size())

    model = FieldEmbeddingMLP(opts.field_sizes, opts.embed_dim, opts.hidden).to(dev)
    emb_named = [("embedding.weight", model.embedding.weight)]
    mlp_named = [("mlp." + n, p) for n, p in model.mlp.named_parameters()]
    # sparse table -> SparseAdam, dense tower -> Adam; both scaled by the number of workers
    opt_sparse = hvd.DistributedOptimizer(
        torch.optim.SparseAdam([model.embedding.weight], lr=opts.sparse_lr * hvd.size()),
        named_parameters=emb_named)
    opt_dense = hvd.DistributedOptimizer(
        torch.optim.Adam(model.mlp.parameters(), lr=opts.lr * hvd.size()),
        named_parameters=mlp_named)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)

    # equal number of steps on every worker, otherwise the last allreduce hangs
    local_steps = data.count_rows(train_parts) // opts.batch_size
    steps = int(hvd.allreduce(torch.tensor(local_steps), op=hvd.Min, name="steps").item())

    history = []
    for epoch in range(opts.epochs):
        model.train()
        t0, n = time.time(), 0
        for x, y in data.iterate(train_parts, opts.batch_size, opts.field_sizes, seed=epoch * 100 + hvd.rank()):
            x, y = x.to(dev), y.to(dev)
            opt_sparse.zero_grad()
            opt_dense.zero_grad()
            loss = F.binary_cross_entropy_with_logits(model(x), y)
            loss.backward()
            opt_sparse.step()
            opt_dense.step()
            n += 1
            if n >= steps:
                break

        model.eval()
        ps, ys = [], []
        with torch.no_grad():
            for x, y in data.iterate(valid_parts, 8192, opts.field_sizes, shuffle=False, drop_last=False):
                ps.append(torch.sigmoid(model(x.to(dev))).cpu().numpy())
                ys.append(y.numpy())
        p, yv = np.concatenate(ps), np.concatenate(ys)
        logloss = float(-np.mean(yv * np.log(p + 1e-7) + (1 - yv) * np.log(1 - p + 1e-7)))
        auc = _auc(yv, p)
        history.append({"epoch": epoch, "auc": auc, "logloss": logloss, "steps": n,
                        "sec": time.time() - t0})
        if hvd.rank() == 0:
            print("[epoch %d] valid auc=%.5f logloss=%.5f (%d steps, %.0fs)" % (
                epoch, auc, logloss, n, time.time() - t0), flush=True)

        # one writer per machine
        if hvd.local_rank() == 0:
            checkpoint.save_embedding_shards(model, opts.ckpt_dir, epoch, opts.emb_shards)
    return history
