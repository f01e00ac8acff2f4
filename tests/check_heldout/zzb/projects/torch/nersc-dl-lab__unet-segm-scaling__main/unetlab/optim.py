"""Discriminative learning rates: the encoder learns slower than the decoder."""
import torch
import horovod.torch as hvd


def build_optimizers(model, lr, encoder_lr_mult=0.1, weight_decay=1e-4):
    enc_params = list(model.encoder.parameters())
    enc_opt = torch.optim.AdamW(enc_params, lr=lr * encoder_lr_mult, weight_decay=weight_decay)

    dec_named = [(n, p) for n, p in model.named_parameters() if not n.startswith("encoder.")]
    dec_opt = torch.optim.AdamW([p for _, p in dec_named], lr=lr, weight_decay=weight_decay)
    dec_opt = hvd.DistributedOptimizer(dec_opt, named_parameters=dec_named)
    return [enc_opt, dec_opt]
