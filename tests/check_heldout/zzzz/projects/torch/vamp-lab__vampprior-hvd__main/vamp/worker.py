import os
import time

import numpy as np
import torch
import horovod.torch as hvd

from . import data
from .model import VampVAE
from .optim import build_optimizers


def _allsum(*vals):
    t = hvd.allreduce(torch.tensor(vals, dtype=torch.float64), op=hvd.Sum)
    return t.tolist()


def train_worker(cfg):
    hvd.init()
    torch.manual_seed(cfg.seed)
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    x_tr, x_te = data.load(cfg.data_path)
    train = data.ShardedBatches(x_tr, cfg.batch_size, hvd.rank(), hvd.size(), cfg.seed)
    test = data.ShardedBatches(x_te, 100, hvd.rank(), hvd.size(), cfg.seed, shuffle=False)

    model = VampVAE(cfg.z_dim, cfg.hidden, cfg.n_pseudo).to(dev)
    opt, prior_opt = build_optimizers(model, cfg)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)

    if hvd.rank() == 0:
        os.makedirs(cfg.out_dir, exist_ok=True)
        cfg.to_json(os.path.join(cfg.out_dir, "config.json"))

    for epoch in range(1, cfg.epochs + 1):
        model.train()
        train.set_epoch(epoch)
        beta = min(1.0, epoch / float(cfg.warmup_epochs))
        t0, s_loss, n = time.time(), 0.0, 0
        for x in train:
            x = x.to(dev)
            loss, _, _ = model(x, beta)
            opt.zero_grad(); prior_opt.zero_grad()
            loss.backward()
            opt.step(); prior_opt.step()
            s_loss += loss.item() * x.size(0); n += x.size(0)
        s_loss, n = _allsum(s_loss, n)
        if hvd.rank() == 0:
            print("epoch %d beta %.2f train loss %.3f (%.0fs)" % (epoch, beta, s_loss / n, time.time() - t0), flush=True)

        if epoch % cfg.eval_every == 0:
            model.eval()
            ll, m = 0.0, 0
            for x in test:
                x = x.to(dev)
                for xi in x:
                    ll += model.iw_log_likelihood(xi, cfg.iw_samples).item()
                    m += 1
            ll, m = _allsum(ll, m)
            if hvd.rank() == 0:
                print("epoch %d test log-likelihood (IW k=%d): %.3f" % (epoch, cfg.iw_samples, ll / m), flush=True)
                torch.save({"model": model.state_dict(), "epoch": epoch},
                           os.path.join(cfg.out_dir, "vamp_e%d.pt" % epoch))
    return hvd.rank()
