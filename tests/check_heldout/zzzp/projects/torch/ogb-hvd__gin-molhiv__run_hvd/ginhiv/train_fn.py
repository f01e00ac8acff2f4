import os

import torch
import torch.nn.functional as F
import horovod.torch as hvd

from .datasets import fake_molhiv, scaffold_split_indices, iterate
from .dist_utils import init_worker, my_range, gather_cat
from .evaluator import roc_auc
from .gin import GIN


@torch.no_grad()
def _predict(model, graphs, idx, cfg, device):
    model.eval()
    ys, ps = [], []
    for x, adj, mask, y in iterate(graphs, idx, cfg["batch_size"], shuffle=False):
        ps.append(model(x.to(device), adj.to(device), mask.to(device)).cpu())
        ys.append(y)
    return torch.cat(ps), torch.cat(ys)


def train(cfg):
    """runs inside every horovod worker"""
    device = init_worker(cfg["use_cuda"])
    torch.manual_seed(cfg["seed"])

    graphs = fake_molhiv(cfg["num_graphs"], cfg["seed"])
    tr, va, te = scaffold_split_indices(len(graphs))
    lo, hi = my_range(len(tr))
    my_train = tr[lo:hi]
    vlo, vhi = my_range(len(va))
    my_val = va[vlo:vhi]

    model = GIN(cfg["emb_dim"], cfg["num_layers"], cfg["drop_ratio"]).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"] * hvd.size())
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)

    best = 0.0
    history = []
    for epoch in range(1, cfg["epochs"] + 1):
        model.train()
        for x, adj, mask, y in iterate(graphs, my_train, cfg["batch_size"], shuffle=True, seed=epoch):
            logits = model(x.to(device), adj.to(device), mask.to(device))
            loss = F.binary_cross_entropy_with_logits(logits, y.to(device))
            opt.zero_grad()
            loss.backward()
            opt.step()

        p, y = _predict(model, graphs, my_val, cfg, device)
        p_all, y_all = gather_cat(p, "val_p"), gather_cat(y, "val_y")
        auc = roc_auc(torch.sigmoid(p_all), y_all)
        history.append(auc)
        if hvd.rank() == 0:
            print("epoch %d  val ROC-AUC %.4f" % (epoch, auc), flush=True)
            if auc > best:
                best = auc
                os.makedirs(os.path.dirname(cfg["ckpt"]) or ".", exist_ok=True)
                torch.save(model.state_dict(), cfg["ckpt"])
    return history if hvd.rank() == 0 else None
