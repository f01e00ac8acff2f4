"""Distributed training entry point (pip install -e .[dist] first).

    horovodrun -np 16 -hostfile hosts.txt python tools/train.py --arch tilenet_m
"""
import os

import horovod.torch as hvd
import torch

from tilecls import build_model, build_optimizer
from tilecls.data import build_loaders
from tilecls.engine import Engine
from tilecls.logging_utils import get_logger
from tilecls.options import get_parser


def main():
    args = get_parser().parse_args()
    hvd.init()
    torch.manual_seed(args.seed)
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda")
    else:
        device = torch.device("cpu")
    logger = get_logger("tilecls", hvd.rank())

    train_loader, val_loader, train_sampler = build_loaders(args, hvd.size(), hvd.rank())
    model = build_model(args.arch, args.num_classes).to(device)
    lr = args.base_lr * hvd.size()
    optimizer = build_optimizer(args, model, lr)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    logger.info("world size %d, lr %.4f, %d train batches per rank", hvd.size(), lr, len(train_loader))

    engine = Engine(model, optimizer, device, accum_steps=args.accum_steps, logger=logger,
                    log_interval=args.log_interval)
    best = 0.0
    for epoch in range(args.epochs):
        train_sampler.set_epoch(epoch)
        engine.train_one_epoch(train_loader, epoch)
        acc = engine.evaluate(val_loader)
        logger.info("epoch %d val acc %.4f", epoch, acc)
        if hvd.rank() == 0 and acc > best:
            best = acc
            os.makedirs(args.output, exist_ok=True)
            torch.save({"epoch": epoch, "arch": args.arch, "state_dict": model.state_dict()},
                       os.path.join(args.output, "best.pt"))
    logger.info("best val acc %.4f", best)


if __name__ == "__main__":
    main()
