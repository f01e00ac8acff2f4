import os

import torch


def save_embedding_shards(model, ckpt_dir, epoch, num_shards):
    d = os.path.join(ckpt_dir, "epoch_%03d" % epoch)
    os.makedirs(d, exist_ok=True)
    w = model.embedding.weight.detach().cpu()
    for i, chunk in enumerate(torch.chunk(w, num_shards, dim=0)):
        torch.save(chunk.clone(), os.path.join(d, "embedding.shard%d" % i))
    torch.save(model.mlp.state_dict(), os.path.join(d, "mlp.pt"))
    return d


def latest(ckpt_dir):
    if not os.path.isdir(ckpt_dir):
        return None
    eps = sorted(x for x in os.listdir(ckpt_dir) if x.startswith("epoch_"))
    return os.path.join(ckpt_dir, eps[-1]) if eps else None
