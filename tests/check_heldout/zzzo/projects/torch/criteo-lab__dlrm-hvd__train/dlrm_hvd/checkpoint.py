import json
import os

import torch


def save_sharded(model, opt_dense, step, out_dir, num_shards):
    os.makedirs(out_dir, exist_ok=True)
    w = model.emb.weight.detach().cpu()
    rows = w.shape[0]
    per = (rows + num_shards - 1) // num_shards
    for s in range(num_shards):
        torch.save(w[s * per:(s + 1) * per].clone(), os.path.join(out_dir, "emb-%05d-of-%05d.pt" % (s, num_shards)))
    dense = {k: v for k, v in model.state_dict().items() if not k.startswith("emb.")}
    torch.save({"dense": dense, "opt": opt_dense.state_dict(), "step": step},
               os.path.join(out_dir, "dense.pt"))
    with open(os.path.join(out_dir, "meta.json"), "w") as f:
        json.dump({"step": step, "num_shards": num_shards, "rows": rows}, f)
