import numpy as np
import torch
import torch.nn.functional as F
import horovod.torch as hvd

from . import hw
from .acquisition import score
from .io_utils import load_features, save_round
from .models import MCDropoutMLP


def _initial_labeled(y, per_class, rng):
    idx = []
    for c in sorted(set(y.tolist())):
        cand = np.where(y.numpy() == c)[0]
        idx += rng.choice(cand, per_class, replace=False).tolist()
    return idx


def train_worker(cfg):
    hvd.init()
    device = hw.pick_device()
    torch.manual_seed(cfg["seed"] + hvd.rank())  # different dropout masks per worker
    x, y, xt, yt = load_features(cfg["data"])
    n_cls = int(y.max()) + 1
    rng = np.random.RandomState(cfg["seed"])
    labeled = _initial_labeled(y, cfg["init_per_class"], rng)
    pool = sorted(set(range(len(y))) - set(labeled))

    model = MCDropoutMLP(x.size(1), n_cls, cfg["hidden"], cfg["dropout"]).to(device)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)

    table = []
    for rnd in range(cfg["rounds"]):
        # BALD paper: retrain from scratch after each acquisition
        if rnd > 0:
            model = MCDropoutMLP(x.size(1), n_cls, cfg["hidden"], cfg["dropout"]).to(device)
        opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"] * hvd.size())
        opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())

        lab = torch.tensor(labeled)
        for ep in range(cfg["epochs"]):
            g = torch.Generator().manual_seed(cfg["seed"] * 100003 + rnd * 1000 + ep)
            perm = lab[torch.randperm(len(lab), generator=g)]
            per = len(perm) // hvd.size()
            mine = perm[hvd.rank() * per:(hvd.rank() + 1) * per]
            model.train()
            for i in range(0, max(per, 1), cfg["batch_size"]):
                b = mine[i:i + cfg["batch_size"]]
                if len(b) == 0:
                    continue
                opt.zero_grad()
                loss = F.cross_entropy(model(x[b].to(device)), y[b].to(device))
                loss.backward()
                opt.step()

        # test set is small: every worker evaluates all of it
        model.eval()
        with torch.no_grad():
            logits = model(xt.to(device))
            acc = (logits.argmax(-1).cpu() == yt).float().mean().item()
            nll = F.cross_entropy(logits, yt.to(device)).item()
        table.append({"round": rnd, "n_labeled": len(labeled), "acc": acc, "nll": nll})
        if hvd.rank() == 0:
            save_round(cfg["out"], rnd, model, labeled, pool)
            print("round %d: %d labeled, acc %.4f" % (rnd, len(labeled), acc), flush=True)

        # acquisition: each worker scores a slice of the pool, gather everything
        pool_t = torch.tensor(pool)
        mine = pool_t[hvd.rank()::hvd.size()]
        s = score(cfg["acquisition"], model, x[mine].to(device), cfg["mc_samples"]).cpu()
        all_s = hvd.allgather(s, name="scores_%d" % rnd)
        all_i = hvd.allgather(mine, name="idx_%d" % rnd)
        top = all_i[torch.argsort(all_s, descending=True)[:cfg["acq_size"]]].tolist()
        labeled = labeled + top
        pool = sorted(set(pool) - set(top))
    return table
