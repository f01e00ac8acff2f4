"""Cassava leaf disease: teacher -> TTA pseudo labels on the test images -> student.

Team project for the PseudoLab Kaggle study (season 3). Run with
    horovodrun -np 4 python pseudo_label.py --config configs/pl.yaml
"""
import argparse
import logging
import os

import yaml
import torch
import horovod.torch as hvd
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from cassava.data import labelled_split, test_images, ImageList, eval_tf, with_pseudo
from cassava.model import build_model
from cassava.train_utils import make_optimizer, train_one_epoch, validate
from cassava.tta import predict_tta

logger = logging.getLogger("pl")


def loaders(train_ds, val_ds, dcfg):
    tr_s = DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
    va_s = DistributedSampler(val_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    kw = dict(num_workers=dcfg["num_workers"], pin_memory=True)
    return (DataLoader(train_ds, dcfg["batch_size"], sampler=tr_s, drop_last=True, **kw),
            DataLoader(val_ds, dcfg["batch_size"], sampler=va_s, **kw), tr_s)


def fit(tag, model, optimizer, train_dl, val_dl, sampler, epochs, device, out_dir):
    best = -1.0
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        loss = train_one_epoch(model, train_dl, optimizer, device)
        acc = validate(model, val_dl, device)
        if hvd.rank() == 0:
            logger.info("%s epoch %d loss %.4f val_acc %.4f", tag, epoch, loss, acc)
            if acc > best:
                best = acc
                torch.save({"epoch": epoch, "model": model.state_dict(), "acc": acc},
                           os.path.join(out_dir, f"{tag}_best.pth"))
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="configs/pl.yaml")
    args = ap.parse_args()
    with open(args.config) as fh:
        cfg = yaml.safe_load(fh)

    hvd.init()
    logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.WARNING,
                        format="%(asctime)s %(name)s %(message)s")
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda", hvd.local_rank())
    else:
        device = torch.device("cpu")
    os.makedirs(cfg["out_dir"], exist_ok=True)

    dcfg = cfg["data"]
    train_ds, val_ds, classes = labelled_split(dcfg["train_dir"], dcfg["img_size"])
    train_dl, val_dl, sampler = loaders(train_ds, val_ds, dcfg)

    # ---- stage 1: teacher
    teacher = build_model(cfg["teacher"]["arch"], len(classes)).to(device)
    t_opt = make_optimizer(teacher, cfg["optim"])
    hvd.broadcast_parameters(teacher.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(t_opt, root_rank=0)
    fit("teacher", teacher, t_opt, train_dl, val_dl, sampler, cfg["teacher"]["epochs"], device, cfg["out_dir"])

    # ---- pseudo labels with TTA
    paths = test_images(dcfg["test_dir"])
    probs = predict_tta(teacher, ImageList(paths, None, eval_tf(dcfg["img_size"])), device,
                        tta=cfg["pseudo"]["tta"])
    keep = probs.max(1) >= cfg["pseudo"]["threshold"]
    pl_paths = [p for p, k in zip(paths, keep) if k]
    pl_labels = probs.argmax(1)[keep]
    logger.info("pseudo labels: kept %d of %d test images", len(pl_paths), len(paths))

    # ---- stage 2: noisy student on labelled + pseudo-labelled images
    mixed = with_pseudo(train_ds, pl_paths, pl_labels, dcfg["img_size"])
    train_dl, val_dl, sampler = loaders(mixed, val_ds, dcfg)
    student = build_model(cfg["student"]["arch"], len(classes)).to(device)
    s_opt = make_optimizer(student, cfg["optim"])
    best = fit("student", student, s_opt, train_dl, val_dl, sampler, cfg["student"]["epochs"],
               device, cfg["out_dir"])
    logger.info("done, best student val acc %.4f", best)


if __name__ == "__main__":
    main()
