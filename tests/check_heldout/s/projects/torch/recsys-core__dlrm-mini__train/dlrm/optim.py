import torch
import horovod.torch as hvd


def build_optimizers(model, cfg, world_size):
    """Dense MLPs: Adam; embedding tables: SparseAdam (sparse gradients, rows touched by the batch)."""
    dense = model.dense_parameters()
    sparse = model.sparse_parameters()
    dense_opt = torch.optim.Adam([p for _, p in dense], lr=cfg["dense_lr"] * world_size)
    dense_opt = hvd.DistributedOptimizer(dense_opt, named_parameters=dense)
    # the tables are huge and their gradients are sparse, so they are updated locally
    sparse_opt = torch.optim.SparseAdam([p for _, p in sparse], lr=cfg["sparse_lr"] * world_size)
    return dense_opt, sparse_opt
