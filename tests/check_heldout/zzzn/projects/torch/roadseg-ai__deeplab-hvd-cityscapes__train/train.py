#!/usr/bin/env python
"""DeepLabV3+ (lite) on Cityscapes, multi-GPU with Horovod.

    horovodrun -np 8 -H host1:4,host2:4 python train.py --data-root /data/cityscapes
"""
import torch
import horovod.torch as hvd

from dlseg.options import parse_opts
from dlseg.dist_utils import init_distributed, log
from dlseg.data import build_loaders
from dlseg.models import build_model
from dlseg.engine import SegTrainer
from dlseg.checkpoint import CheckpointSaver, load_checkpoint


def main():
    opts = parse_opts()
    rank, world = init_distributed(opts.seed)
    device = torch.device("cuda") if torch.cuda.is_available() else torch.device("cpu")
    log(f"world size {world}, opts: {vars(opts)}")

    train_loader, val_loader, train_sampler = build_loaders(opts)

    model = build_model(opts.num_classes).to(device)
    # linear scaling: global batch = batch_size * world
    lr = opts.base_lr * world
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=opts.momentum, weight_decay=opts.wd)

    start_epoch, best = 0, -1.0
    if opts.resume and rank == 0:
        start_epoch, best = load_checkpoint(opts.resume, model, optimizer)
    start_epoch = hvd.broadcast_object(start_epoch, root_rank=0, name="start_epoch")

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    compression = hvd.Compression.fp16 if opts.fp16_allreduce else hvd.Compression.none
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         compression=compression)

    trainer = SegTrainer(model, optimizer, opts, device, len(train_loader), lr)
    trainer.cur_iter = start_epoch * len(train_loader)
    saver = CheckpointSaver(opts.out_dir)
    saver.best = best

    for epoch in range(start_epoch, opts.epochs):
        trainer.train_epoch(train_loader, train_sampler, epoch)
        if (epoch + 1) % opts.eval_every == 0 or epoch + 1 == opts.epochs:
            miou, per_class = trainer.evaluate(val_loader)
            log(f"epoch {epoch} mIoU {miou:.4f}")
            saver.save(model, optimizer, epoch, miou)
    log(f"done, best mIoU {saver.best:.4f}")


if __name__ == "__main__":
    main()
