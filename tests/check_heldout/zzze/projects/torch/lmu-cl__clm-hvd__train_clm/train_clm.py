"""Causal LSTM language model, data parallel with Horovod.

    mpirun -np 4 python train_clm.py --cfg configs/wiki103.yaml --opts lr 5e-4 resume out/clm/clm_4000.pt
"""
import horovod.torch as hvd
import torch

from clm import parse_config
from clm.data import ManifestTokens
from clm.model import LSTMLM
from clm.trainer import Trainer


def build(cfg):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if device.type == "cuda":
        torch.cuda.set_device(hvd.local_rank())

    micro_bs = cfg.tokens_per_step // (cfg.seq_len * cfg.accum * hvd.size())
    if hvd.rank() == 0:
        print(f"{hvd.size()} ranks, micro batch {micro_bs} x {cfg.accum} accum, "
              f"{cfg.tokens_per_step} tokens/step", flush=True)

    train_set = ManifestTokens(cfg.manifest, cfg.seq_len)
    val_set = ManifestTokens(cfg.val_manifest, cfg.seq_len)
    model = LSTMLM(cfg.vocab, cfg.emb, cfg.hidden).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters(),
                                   backward_passes_per_step=cfg.accum)
    return Trainer(cfg, model, opt, train_set, val_set, micro_bs, device)


if __name__ == "__main__":
    hvd.init()
    torch.manual_seed(0)
    cfg = parse_config()
    trainer = build(cfg)
    trainer.sync()
    trainer.maybe_resume()
    trainer.fit()
    trainer.save()
