import horovod.torch as hvd


def sync_model(model, optimizer):
    """Make every worker start from rank 0's weights and optimizer state."""
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root=0)


def gather_cat(t):
    """Concatenate a per-rank tensor across all workers (uneven sizes are fine)."""
    return hvd.allgather(t.contiguous())
