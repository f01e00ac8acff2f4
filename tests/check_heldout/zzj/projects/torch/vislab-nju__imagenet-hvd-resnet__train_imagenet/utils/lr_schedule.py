import horovod.torch as hvd


def lr_scaler(args):
    # Adasum does not need the lr scaled by the number of workers.
    if args.use_adasum:
        return args.batches_per_allreduce * (hvd.local_size() if hvd.nccl_built() else 1)
    return args.batches_per_allreduce * hvd.size()


def adjust_learning_rate(optimizer, epoch, batch_idx, steps_per_epoch, args):
    """Gradual warmup (Goyal et al.) then step decay at 30/60/80."""
    if epoch < args.warmup_epochs:
        epoch += float(batch_idx + 1) / steps_per_epoch
        lr_adj = 1. / lr_scaler(args) * (epoch * (lr_scaler(args) - 1) / args.warmup_epochs + 1)
    elif epoch < 30:
        lr_adj = 1.
    elif epoch < 60:
        lr_adj = 1e-1
    elif epoch < 80:
        lr_adj = 1e-2
    else:
        lr_adj = 1e-3
    for param_group in optimizer.param_groups:
        param_group['lr'] = args.base_lr * lr_scaler(args) * lr_adj
