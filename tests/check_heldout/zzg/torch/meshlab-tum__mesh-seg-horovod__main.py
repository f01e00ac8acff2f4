import argparse
import json
import os

import torch
import horovod.torch as hvd
from torch.utils.data import DataLoader

from meshseg.data import MeshFaces, SizeBucketSampler, collate_meshes
from meshseg.model import MeshSegNet
from meshseg.trainer import Trainer
from meshseg.utils import make_logger, seed_everything


def load_config():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default=os.path.join(os.path.dirname(__file__), "configs", "default.json"))
    ap.add_argument("--epochs", type=int)
    ap.add_argument("--data-root")
    ns = ap.parse_args()
    with open(ns.config) as fh:
        cfg = json.load(fh)
    for key in ("epochs", "data_root"):
        if getattr(ns, key) is not None:
            cfg[key] = getattr(ns, key)
    return cfg


def main():
    cfg = load_config()
    hvd.init()
    seed_everything(cfg["seed"])
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda")
    else:
        device = torch.device("cpu")
    log = make_logger(verbose=hvd.rank() == 0)

    train_set = MeshFaces(cfg["data_root"], "train")
    test_set = MeshFaces(cfg["data_root"], "test")
    train_loader = DataLoader(train_set, collate_fn=collate_meshes, num_workers=2,
                              batch_sampler=SizeBucketSampler(train_set.face_counts, cfg["batch_size"],
                                                              hvd.size(), hvd.rank(), shuffle=True))
    test_loader = DataLoader(test_set, collate_fn=collate_meshes,
                             batch_sampler=SizeBucketSampler(test_set.face_counts, cfg["batch_size"],
                                                             hvd.size(), hvd.rank(), shuffle=False))

    model = MeshSegNet(hidden=cfg["hidden"], depth=cfg["depth"], num_parts=cfg["num_parts"]).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg["lr"] * hvd.size(), weight_decay=0.01)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    trainer = Trainer(model, optimizer, device, amp=cfg["amp"], clip=cfg["clip"], log=log)
    for epoch in range(cfg["epochs"]):
        trainer.train_epoch(train_loader, epoch)
        acc = trainer.evaluate(test_loader)
        log.info("epoch %d  face accuracy %.4f", epoch, acc)
        trainer.save_checkpoint(os.path.join(cfg["out_dir"], f"epoch_{epoch:03d}.pt"), epoch, acc)


if __name__ == "__main__":
    main()
