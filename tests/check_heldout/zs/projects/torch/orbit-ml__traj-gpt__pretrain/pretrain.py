"""Pretrain a GPT over tokenised robot trajectories (actions binned per dimension)."""
import time

import numpy as np
import torch
import horovod.torch as hvd

from trajgpt.config import PretrainConfig
from trajgpt.engine import Engine
from trajgpt.model import TrajGPT
from trajgpt.tokenizer import BinTokenizer


def episode_tokens(path, tokenizer, fake=False):
    if fake or path == "fake":
        rng = np.random.default_rng(3)
        episodes = [rng.normal(size=(int(n), 4)) for n in rng.integers(80, 200, 64)]
    else:
        z = np.load(path, allow_pickle=True)
        episodes = list(z["actions"])
    tokenizer.fit(np.concatenate(episodes))
    return [tokenizer.encode(e) for e in episodes]


def sample_batch(streams, rng, batch, context):
    xs, ys = [], []
    for _ in range(batch):
        s = streams[rng.integers(len(streams))]
        i = rng.integers(0, len(s) - context - 1)
        xs.append(s[i:i + context])
        ys.append(s[i + 1:i + 1 + context])
    return torch.as_tensor(np.stack(xs)), torch.as_tensor(np.stack(ys))


def main():
    cfg = PretrainConfig.from_cli()
    hvd.init()
    torch.set_num_threads(max(1, torch.get_num_threads() // hvd.local_size()))
    device = "cpu"
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = f"cuda:{hvd.local_rank()}"
    torch.manual_seed(cfg.seed)

    tok = BinTokenizer(cfg.n_bins)
    streams = episode_tokens(cfg.data, tok)
    n_val = max(1, len(streams) // 20)
    val_streams, train_streams = streams[:n_val], streams[n_val:]
    my_streams = train_streams[hvd.rank()::hvd.size()]
    rng = np.random.default_rng(cfg.seed + hvd.rank())

    model = TrajGPT(cfg.n_bins, cfg.context, cfg.n_layer, cfg.n_head, cfg.n_embd).to(device)
    engine = Engine(cfg, model)
    fwd = torch.compile(model) if cfg.compile else model

    for epoch in range(engine.epoch, cfg.epochs):
        model.train()
        t0 = time.time()
        for _ in range(cfg.iters_per_epoch):
            for g in engine.opt.param_groups:
                g["lr"] = engine.lr_at(engine.iter)
            engine.opt.zero_grad()
            for _ in range(cfg.grad_accum):
                x, y = sample_batch(my_streams, rng, cfg.micro_batch, cfg.context)
                _, loss = fwd(x.to(device), y.to(device))
                (loss / cfg.grad_accum).backward()
            engine.opt.step()
            engine.iter += 1
        engine.epoch = epoch + 1

        model.eval()
        vrng = np.random.default_rng(0)
        with torch.no_grad():
            losses = [model(*[t.to(device) for t in sample_batch(val_streams, vrng, 32, cfg.context)])[1].item()
                      for _ in range(20)]
        if hvd.rank() == 0:
            print(f"epoch {epoch} iter {engine.iter} val_loss {np.mean(losses):.4f} "
                  f"lr {engine.lr_at(engine.iter):.2e} {time.time() - t0:.0f}s", flush=True)
        engine.save(tok.edges)


if __name__ == "__main__":
    main()
