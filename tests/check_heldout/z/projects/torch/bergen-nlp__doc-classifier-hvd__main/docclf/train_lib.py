import os

import torch
import torch.nn.functional as F

import horovod.torch as hvd

from . import hvd_helpers as H
from .text import BagOfHashes, collate, read_jsonl


def train(cfg):
    H.setup()
    docs, ys = read_jsonl(cfg["train_file"], cfg["labels"], cfg["buckets"], cfg["max_tokens"])
    model = BagOfHashes(cfg["buckets"], cfg["emb_dim"], len(cfg["labels"]))
    # lr is for the fixed global batch; each worker takes global_batch / size of it
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=0.9)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    bs = H.per_worker_batch(cfg["global_batch"])

    f1 = None
    for epoch in range(cfg["epochs"]):
        model.train()
        mine = H.my_slice(len(docs), epoch)
        for s in range(0, len(mine) - bs + 1, bs):
            batch = mine[s:s + bs]
            flat, offsets, y = collate([docs[i] for i in batch], [ys[i] for i in batch])
            optimizer.zero_grad()
            loss = F.cross_entropy(model(flat, offsets), y)
            loss.backward()
            optimizer.step()
        if hvd.rank() == 0:
            f1 = evaluate(model, cfg)
            print(f"epoch {epoch}: last loss {loss.item():.4f}  dev macro-F1 {f1:.4f}")
            os.makedirs(os.path.dirname(cfg["save_path"]) or ".", exist_ok=True)
            torch.save(model.state_dict(), cfg["save_path"])
    return f1


@torch.no_grad()
def evaluate(model, cfg):
    """Whole dev set, on the calling worker only."""
    model.eval()
    docs, ys = read_jsonl(cfg["dev_file"], cfg["labels"], cfg["buckets"], cfg["max_tokens"])
    flat, offsets, y = collate(docs, ys)
    pred = model(flat, offsets).argmax(1)
    return H.macro_f1(pred, y, len(cfg["labels"]))
