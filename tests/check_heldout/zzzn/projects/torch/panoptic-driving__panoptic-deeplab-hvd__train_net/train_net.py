#!/usr/bin/env python
"""Panoptic-DeepLab training, horovod port of our detectron2 config.

horovodrun -np 8 -H node1:4,node2:4 python train_net.py --data-root /ds/cityscapes
"""
import itertools
import time

import numpy as np
import torch
import horovod.torch as hvd

from pdl import get_cfg
from pdl.dataset import build_train_loader, build_val_loader
from pdl.model import PanopticDeepLabLite, panoptic_loss
from pdl.evaluator import SemSegEvaluator
from pdl.utils import setup_logger, poly_lr, Checkpointer


def do_eval(model, loader, evaluator, device):
    model.eval()
    evaluator.reset()
    with torch.no_grad():
        for img, sem, _, _ in loader:
            sem_logit, _, _ = model(img.to(device))
            evaluator.process(sem_logit.argmax(1).cpu().numpy().ravel(), sem.numpy().ravel())
    model.train()
    return evaluator.evaluate()


def main():
    cfg = get_cfg()
    hvd.init()
    torch.cuda.set_device(hvd.rank())
    device = torch.device("cuda")
    np.random.seed(cfg.SEED + hvd.rank())
    logger = setup_logger(cfg.OUTPUT_DIR)

    train_loader = build_train_loader(cfg)
    val_loader = build_val_loader(cfg)

    model = PanopticDeepLabLite(cfg.NUM_CLASSES).to(device)
    base_lr = cfg.BASE_LR * hvd.size()
    optimizer = torch.optim.Adam(model.parameters(), lr=base_lr, weight_decay=cfg.WEIGHT_DECAY)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    evaluator = SemSegEvaluator(cfg.NUM_CLASSES)
    ckpt = Checkpointer(cfg.OUTPUT_DIR)
    data_iter = iter(itertools.cycle(train_loader))
    model.train()
    t0 = time.time()
    for it in range(cfg.MAX_ITER):
        img, sem, center, offset = [t.to(device, non_blocking=True) for t in next(data_iter)]
        for g in optimizer.param_groups:
            g["lr"] = poly_lr(base_lr, it, cfg.MAX_ITER, cfg.POLY_POWER)
        loss = panoptic_loss(model(img), sem, center, offset, cfg)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

        if it % 20 == 0:
            logger.info("iter %d  loss %.4f  lr %.2e  %.2fs/it", it, loss.item(),
                        optimizer.param_groups[0]["lr"], (time.time() - t0) / (it + 1))
        if (it + 1) % cfg.CKPT_PERIOD == 0:
            ckpt.save("model_%07d" % (it + 1), model, optimizer, it)
        if (it + 1) % cfg.EVAL_PERIOD == 0 or it + 1 == cfg.MAX_ITER:
            res = do_eval(model, val_loader, evaluator, device)
            logger.info("iter %d  mIoU %.2f  pixAcc %.2f", it, res["mIoU"], res["pixAcc"])
            ckpt.save_if_best(res["mIoU"], model, optimizer, it)


if __name__ == "__main__":
    main()
