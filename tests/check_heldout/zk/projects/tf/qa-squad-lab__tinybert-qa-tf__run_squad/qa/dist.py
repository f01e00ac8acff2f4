import horovod.tensorflow as hvd


def maybe_broadcast(model, optimizer, step):
    """After the first update, copy rank 0's weights and optimizer slots to everybody."""
    if step == 0 and hvd.rank() == 0:
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(optimizer.variables, root_rank=0)
