import os
import random

import numpy as np
import pandas as pd
import torch
import horovod.torch as hvd

from tabnet_hvd.options import get_parser
from tabnet_hvd.dataset import preprocess, make_loaders
from tabnet_hvd.tabnet import TabNet
from tabnet_hvd.engine import run_training


def seed_everything(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    os.environ["PYTHONHASHSEED"] = str(seed)


if __name__ == "__main__":
    args = get_parser().parse_args()
    hvd.init()
    seed_everything(args.seed)

    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda")
    else:
        device = torch.device("cpu")

    df = pd.read_csv(args.train_csv)
    cat_cols = [c for c in args.cat_cols.split(",") if c]
    trn, val, num_cols, cards = preprocess(df, cat_cols, args.target, args.fold, args.n_folds, args.seed)
    train_loader, valid_loader, train_sampler = make_loaders(args, trn, val, num_cols, cat_cols,
                                                             hvd.rank(), hvd.size())

    model = TabNet(len(num_cols), cards, args.emb_dim, args.n_d, args.n_a, args.n_steps, args.gamma,
                   args.virtual_batch_size).to(device)

    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr * hvd.size())
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    # mask columns: numeric features, then emb_dim columns per categorical
    feature_names = num_cols + [f"{c}_emb{j}" for c in cat_cols for j in range(args.emb_dim)]
    best = run_training(args, model, optimizer, train_loader, valid_loader, train_sampler, device,
                        feature_names)
    if hvd.rank() == 0:
        print("best auc:", best)
