"""Core-set active learning (Sener & Savarese) -- horovod version.

run:  horovodrun -np 8 -H localhost:8 python main.py --config configs/cifar_feats.json
"""
import os
import json
import argparse

import numpy as np
import torch
import horovod.torch as hvd

from coreset import config as C
from coreset.loaders import make_train_loader, make_eval_loader, make_pool_loader, load_arrays
from coreset.model import build_model
from coreset.engine import train_one_epoch, evaluate, embed
from coreset.selection import kcenter_greedy

parser = argparse.ArgumentParser()
parser.add_argument("--config", default=C.DEFAULT_CONFIG)
parser.add_argument("--out_dir", default=None)
parser.add_argument("--cycles", type=int, default=None)
cli = parser.parse_args()

hvd.init()
cfg = C.load(cli.config, cli)
if torch.cuda.is_available():
    torch.cuda.set_device(hvd.local_rank())
    torch.cuda.manual_seed(cfg["seed"])
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(cfg["seed"])

x_tr, y_tr, x_te, y_te = load_arrays(cfg["data"])
rng = np.random.RandomState(cfg["seed"])
all_idx = rng.permutation(len(x_tr))
labeled = list(all_idx[:cfg["initial_budget"]])
unlabeled = list(all_idx[cfg["initial_budget"]:])

if hvd.rank() == 0:
    os.makedirs(cfg["out_dir"], exist_ok=True)
    print(json.dumps(cfg, indent=1))

results = []
for cycle in range(cfg["cycles"]):
    model = build_model(x_tr.shape[1], cfg["num_classes"], cfg["width"]).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg["lr"] * hvd.size(),
                                momentum=0.9, weight_decay=5e-4)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         compression=hvd.Compression.fp16 if cfg["fp16_allreduce"] else hvd.Compression.none)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    sched = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[int(cfg["epochs"] * 0.8)], gamma=0.1)

    train_loader, sampler = make_train_loader(x_tr, y_tr, labeled, cfg["batch_size"])
    for epoch in range(cfg["epochs"]):
        sampler.set_epoch(epoch)
        loss = train_one_epoch(model, optimizer, train_loader, device)
        sched.step()
    acc = evaluate(model, make_eval_loader(x_te, y_te, cfg["batch_size"]), device)
    if hvd.rank() == 0:
        print("cycle {} | labeled {} | test acc {:.2f}".format(cycle, len(labeled), 100 * acc))
        results.append([cycle, len(labeled), acc])
        torch.save({"cycle": cycle, "state_dict": model.state_dict(), "labeled": labeled},
                   os.path.join(cfg["out_dir"], "ckpt_cycle{}.pth".format(cycle)))
        np.save(os.path.join(cfg["out_dir"], "labeled_c{}.npy".format(cycle)), np.array(labeled))
        np.save(os.path.join(cfg["out_dir"], "unlabeled_c{}.npy".format(cycle)), np.array(unlabeled))

    if cycle == cfg["cycles"] - 1:
        break
    # ---- core-set query: embeddings of labeled + a random subset of the pool
    subset = rng.choice(unlabeled, min(cfg["subset"], len(unlabeled)), replace=False).tolist()
    feats_l = embed(model, make_pool_loader(x_tr, labeled, cfg["batch_size"]), device)
    feats_u = embed(model, make_pool_loader(x_tr, subset, cfg["batch_size"]), device)
    chosen = kcenter_greedy(feats_l, feats_u, cfg["budget"])
    new = [subset[i] for i in chosen]
    labeled += new
    unlabeled = [u for u in unlabeled if u not in set(new)]

if hvd.rank() == 0:
    with open(os.path.join(cfg["out_dir"], "results.txt"), "w") as f:
        f.write("cycle\tlabeled\tacc\n")
        for r in results:
            f.write("{}\t{}\t{:.4f}\n".format(*r))
