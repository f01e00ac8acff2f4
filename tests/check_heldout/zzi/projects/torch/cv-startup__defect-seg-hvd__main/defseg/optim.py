import torch
import horovod.torch as hvd


def build_optimizers(model, opts):
    """Two optimizers: a slow SGD for the encoder and Adam for the decoder.

    Returns a list; the engine zeroes and steps every entry.
    """
    scale = hvd.size() * opts.lr_scale
    enc = torch.optim.SGD(model.encoder.parameters(), lr=opts.lr_encoder * scale, momentum=0.9)
    dec = torch.optim.Adam(model.decoder.parameters(), lr=opts.lr_decoder * scale)
    dec = hvd.DistributedOptimizer(dec, named_parameters=model.decoder.named_parameters(prefix="decoder"))
    return [enc, dec]


def sync_initial_state(model, optimizers):
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    for opt in optimizers:
        hvd.broadcast_optimizer_state(opt, root_rank=0)
