#!/usr/bin/env python
# ResNet training with horovod + torch amp. Usage:
#   horovodrun -np 8 -H host1:4,host2:4 python train.py --data /datasets/imagenet --fp16-allreduce
import torch
import torchvision.models as models
import horovod.torch as hvd

from ampnet import options, dist, data, checkpoint
from ampnet.trainer import AmpTrainer


def main():
    args = options.parse()
    rank, world = dist.setup(args)
    if rank == 0:
        print("world size %d, amp=%s, fp16 allreduce=%s" % (world, args.amp, args.fp16_allreduce))

    train_loader, val_loader, train_sampler = data.build_loaders(args)

    model = getattr(models, args.arch)(num_classes=args.num_classes)
    if args.cuda:
        model.cuda()

    # lr gets multiplied by hvd.size() inside AmpTrainer.adjust_lr (after warmup)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.base_lr * world,
                                momentum=args.momentum, weight_decay=args.wd)
    compression = hvd.Compression.fp16 if args.fp16_allreduce else hvd.Compression.none
    optimizer = hvd.DistributedOptimizer(optimizer,
                                         named_parameters=model.named_parameters(),
                                         compression=compression,
                                         op=hvd.Average)
    scaler = torch.cuda.amp.GradScaler(enabled=args.amp and args.cuda)

    resume_from_epoch = 0
    if args.resume:
        resume_from_epoch = checkpoint.find_resume_epoch(args.checkpoint_format, args.epochs)
        checkpoint.load(args.checkpoint_format, resume_from_epoch, model, optimizer, scaler)

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    trainer = AmpTrainer(args, model, optimizer, scaler, train_loader, val_loader, train_sampler)
    for epoch in range(resume_from_epoch, args.epochs):
        trainer.train_epoch(epoch)
        trainer.validate(epoch)
        checkpoint.save(args.checkpoint_format, epoch, model, optimizer, scaler)


if __name__ == "__main__":
    main()
