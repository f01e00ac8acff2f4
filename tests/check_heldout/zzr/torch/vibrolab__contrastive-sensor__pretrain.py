"""Contrastive (SimCLR-style) pretraining on unlabeled vibration windows, then a linear probe
on the labelled fault subset.  Run with horovodrun / mpirun."""
import argparse
import json
import logging

import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd

from simclr import ContrastiveModel, Encoder
from simclr.probe import embed, f1_binary, fit_linear_probe
from simclr.trainer import PretrainTrainer

DEFAULTS = {"unlabeled": "data/unlabeled.npy", "labeled": "data/faults.npz", "epochs": 100,
            "batch_size": 256, "lr": 0.3, "wd": 1e-6, "temperature": 0.2, "out_dir": "ckpt/simclr"}


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--config", default=None, help="json file overriding DEFAULTS")
    p.add_argument("--probe-epochs", type=int, default=50)
    args = p.parse_args()
    cfg = dict(DEFAULTS)
    if args.config:
        with open(args.config) as fh:
            cfg.update(json.load(fh))
    return args, cfg


def sharded(ds, batch_size, shuffle):
    sampler = DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=shuffle)
    return DataLoader(ds, batch_size=batch_size, sampler=sampler, drop_last=shuffle)


def main():
    args, cfg = get_args()
    hvd.init()
    torch.manual_seed(1234)
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.ERROR)

    unlabeled = torch.from_numpy(np.load(cfg["unlabeled"], mmap_mode="r")[:].astype(np.float32))
    loader = sharded(TensorDataset(unlabeled), cfg["batch_size"], shuffle=True)

    model = ContrastiveModel(Encoder(in_ch=unlabeled.size(1))).to(device)
    # linear scaling rule on the global batch
    lr = cfg["lr"] * cfg["batch_size"] * hvd.size() / 256
    base_opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9, weight_decay=cfg["wd"])
    optimizer = hvd.DistributedOptimizer(base_opt, named_parameters=model.named_parameters())
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=cfg["epochs"])

    trainer = PretrainTrainer(model, optimizer, scheduler, device, cfg["out_dir"], cfg["temperature"])
    for epoch in range(cfg["epochs"]):
        trainer.train_epoch(loader, epoch)
        if (epoch + 1) % 10 == 0 or epoch + 1 == cfg["epochs"]:
            trainer.save(epoch)

    # ---- linear probe on frozen features ----
    lab = np.load(cfg["labeled"])
    x, y = torch.from_numpy(lab["x"].astype(np.float32)), torch.from_numpy(lab["y"].astype(np.int64))
    n_train = int(0.7 * len(x))
    train_ds, test_ds = TensorDataset(x[:n_train], y[:n_train]), TensorDataset(x[n_train:], y[n_train:])
    probe = fit_linear_probe(model.encoder, sharded(train_ds, 512, shuffle=False), device,
                             epochs=args.probe_epochs)
    feats, labels = embed(model.encoder, sharded(test_ds, 512, shuffle=False), device)
    pred = probe(feats).argmax(1)
    precision, recall, f1 = f1_binary(pred, labels)
    if hvd.rank() == 0:
        logging.info("linear probe: precision %.3f recall %.3f F1 %.3f", precision, recall, f1)


if __name__ == "__main__":
    main()
