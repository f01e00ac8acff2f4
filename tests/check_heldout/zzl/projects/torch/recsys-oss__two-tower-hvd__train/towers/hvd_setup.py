import torch
import horovod.torch as hvd


def setup():
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        return torch.device("cuda", hvd.local_rank())
    return torch.device("cpu")


def build_optimizers(model, lr):
    """Dense params: Adam averaged over workers. Embedding tables: SparseAdam.

    Embedding gradients are sparse, which the fp16 allreduce path cannot take,
    so the tables get their own optimizer.
    """
    dense = [(n, p) for n, p in model.named_parameters() if ".emb." not in n]
    sparse = [p for n, p in model.named_parameters() if ".emb." in n]
    dense_opt = torch.optim.Adam([p for _, p in dense], lr=lr * hvd.size())
    dense_opt = hvd.DistributedOptimizer(dense_opt, named_parameters=dense,
                                         compression=hvd.Compression.fp16)
    sparse_opt = torch.optim.SparseAdam(sparse, lr=lr * hvd.size())
    return dense_opt, sparse_opt


def sync_initial_state(model, dense_opt):
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(dense_opt, root_rank=0)
