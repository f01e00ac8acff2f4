"""Process-group helpers. Horovod replaced torch.distributed here in 2024-03."""
import horovod.torch as hvd


def init_horovod():
    hvd.init()
    return hvd.rank(), hvd.size()


def is_main_process():
    return hvd.rank() == 0


def sync_initial_state(model, optimizer):
    """Start every worker from rank 0's weights and optimizer state."""
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
