import os
import json

import torch
import horovod.torch as hvd


def save(model, opt, rnd, out):
    if hvd.rank() != 0:
        return
    os.makedirs(out, exist_ok=True)
    torch.save({"round": rnd, "model": model.state_dict(), "optimizer": opt.state_dict()},
               os.path.join(out, "round%02d.pt" % rnd))


def save_indices(labeled, pool, rnd, out):
    if hvd.rank() != 0:
        return
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "idx_round%02d.json" % rnd), "w") as f:
        json.dump({"labeled": [int(i) for i in labeled], "pool": [int(i) for i in pool]}, f)
