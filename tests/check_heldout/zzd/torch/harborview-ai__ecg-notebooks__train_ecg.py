"""ECG beat classifier (MIT-BIH style 187-sample beats), exported from notebooks/ecg_cnn.ipynb.

Hyper-parameters live in hparams.ini ([train] section); run with
    horovodrun -np 4 python train_ecg.py hparams.ini
"""
import configparser
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import horovod.torch as hvd

from ecgkit import hvd_utils
from ecgkit.loaders import BeatDataset, make_loader
from ecgkit.logbook import Logbook
from ecgkit.net import BeatCNN

DEFAULTS = {
    "data": "data/mitbih_beats.npz",
    "batch_size": "128",
    "lr": "0.001",
    "epochs": "25",
    "ckpt": "ecg_best.pt",
    "logbook": "logbook.csv",
}


def read_hparams(path):
    cp = configparser.ConfigParser(defaults=DEFAULTS)
    cp.read(path)
    sec = cp["train"] if cp.has_section("train") else cp["DEFAULT"]
    return {
        "data": sec.get("data"),
        "batch_size": sec.getint("batch_size"),
        "lr": sec.getfloat("lr"),
        "epochs": sec.getint("epochs"),
        "ckpt": sec.get("ckpt"),
        "logbook": sec.get("logbook"),
    }


# %% cell: data
def get_data(hp):
    z = np.load(hp["data"])
    train_ds = BeatDataset(z["x_train"], z["y_train"], augment=True)
    val_ds = BeatDataset(z["x_test"], z["y_test"])
    train_dl = make_loader(train_ds, hp["batch_size"], shuffle=True)
    val_dl = make_loader(val_ds, 512, distributed=True)
    return train_dl, val_dl


# %% cell: one epoch
def run_epoch(model, dl, opt, crit, device, train=True):
    model.train(train)
    tot, correct, n = 0.0, 0, 0
    with torch.set_grad_enabled(train):
        for x, y in dl:
            x, y = x.to(device), y.to(device)
            out = model(x)
            loss = crit(out, y)
            if train:
                opt.zero_grad()
                loss.backward()
                opt.step()
            tot += loss.item() * len(y)
            correct += (out.argmax(1) == y).sum().item()
            n += len(y)
    return tot / n, correct / n


# %% cell: main
def main(hp_path="hparams.ini"):
    hp = read_hparams(hp_path)
    device = hvd_utils.init_and_pin()
    torch.manual_seed(42)

    train_dl, val_dl = get_data(hp)
    model = BeatCNN(n_classes=5).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=hp["lr"] * hvd.size())
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
    hvd_utils.broadcast_all(model, opt)
    crit = nn.CrossEntropyLoss()

    book = Logbook(hp["logbook"]) if hvd_utils.is_root() else None
    best = -1.0
    for epoch in range(hp["epochs"]):
        t0 = time.time()
        tr_loss, tr_acc = run_epoch(model, train_dl, opt, crit, device, train=True)
        va_loss, va_acc = run_epoch(model, val_dl, None, crit, device, train=False)
        if hvd_utils.is_root():
            book.write(epoch=epoch, tr_loss=tr_loss, tr_acc=tr_acc, va_loss=va_loss, va_acc=va_acc,
                       secs=time.time() - t0)
            print(f"[{epoch:02d}] loss {tr_loss:.4f}/{va_loss:.4f} acc {tr_acc:.4f}/{va_acc:.4f}")
            if va_acc > best:
                best = va_acc
                torch.save({"epoch": epoch, "model": model.state_dict(), "va_acc": va_acc}, hp["ckpt"])
    if book:
        book.close()


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "hparams.ini")
