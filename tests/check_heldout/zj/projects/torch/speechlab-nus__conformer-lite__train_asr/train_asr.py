#!/usr/bin/env python3
# Conformer-lite CTC recipe, stage 4 (training).  run.sh calls:
#   horovodrun -np $ngpu python train_asr.py --exp-dir $expdir --feats-dir $dumpdir
import argparse
import dataclasses
import logging

import horovod.torch as hvd
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from asr.config import ExpConfig
from asr.data import FbankDataset, collate, spec_augment
from asr.hooks import Checkpointer, NoamWarmup
from asr.model import ConvGRUEncoder
from asr.utils import all_reduce_sum, is_main, setup_distributed


def parse():
    ap = argparse.ArgumentParser()
    for f in dataclasses.fields(ExpConfig):
        if f.type in (int, float, str, "int", "float", "str"):
            ap.add_argument("--" + f.name.replace("_", "-"), type=type(f.default), default=f.default)
    ap.add_argument("--no-spec-aug", action="store_true")
    ns = vars(ap.parse_args())
    no_aug = ns.pop("no_spec_aug")
    return dataclasses.replace(ExpConfig(), spec_aug=not no_aug, **ns)


def ctc_loss(model, feats, toks, tok_lens, reduction="mean"):
    logp = model(feats)
    in_lens = torch.full((feats.size(0),), logp.size(1), dtype=torch.long)
    return F.ctc_loss(logp.transpose(0, 1), toks, in_lens, tok_lens, blank=0,
                      reduction=reduction, zero_infinity=True)


@torch.no_grad()
def validate(model, loader, device):
    model.eval()
    tot = torch.zeros(2, dtype=torch.float64)
    for feats, toks, lens in loader:
        tot[0] += ctc_loss(model, feats.to(device), toks.to(device), lens, reduction="sum").item()
        tot[1] += lens.sum().item()
    tot = all_reduce_sum(tot, "valid_ctc")
    return (tot[0] / tot[1]).item()


def main():
    cfg = parse()
    device = setup_distributed(seed=7)
    logging.basicConfig(level=logging.INFO if is_main() else logging.ERROR,
                        format="%(asctime)s [%(levelname)s] %(message)s")

    train_ds, valid_ds = FbankDataset(cfg.feats_dir, "train"), FbankDataset(cfg.feats_dir, "valid")
    train_sampler = DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
    train_dl = DataLoader(train_ds, batch_size=cfg.batch_size, sampler=train_sampler,
                          collate_fn=collate, drop_last=True, num_workers=2)
    valid_dl = DataLoader(valid_ds, batch_size=cfg.batch_size, collate_fn=collate,
                          sampler=DistributedSampler(valid_ds, hvd.size(), hvd.rank(), shuffle=False))

    model = ConvGRUEncoder(cfg.n_mels, cfg.hidden, cfg.layers, cfg.vocab_size).to(device)
    # peak lr was tuned on ref_world_size GPUs; keep lr / global batch constant
    peak_lr = cfg.peak_lr * hvd.size() / cfg.ref_world_size
    optimizer = torch.optim.Adam(model.parameters(), lr=peak_lr, betas=(0.9, 0.98), eps=1e-9)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         backward_passes_per_step=cfg.accum_grad)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    hooks = [NoamWarmup(optimizer, peak_lr, cfg.warmup_steps), Checkpointer(cfg.exp_dir, keep=cfg.keep_ckpt)]
    state = {"model": model, "optimizer": optimizer, "step": 0, "epoch": 0}
    n_micro = len(train_dl) // cfg.accum_grad * cfg.accum_grad

    for epoch in range(cfg.epochs):
        state["epoch"] = epoch
        train_sampler.set_epoch(epoch)
        model.train()
        for i, (feats, toks, lens) in enumerate(train_dl):
            if i == n_micro:
                break
            feats = spec_augment(feats) if cfg.spec_aug else feats
            loss = ctc_loss(model, feats.to(device), toks.to(device), lens) / cfg.accum_grad
            loss.backward()
            if (i + 1) % cfg.accum_grad == 0:
                for h in hooks:
                    h.before_step(state)
                optimizer.synchronize()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
                with optimizer.skip_synchronize():
                    optimizer.step()
                optimizer.zero_grad()
                state["step"] += 1
                for h in hooks:
                    h.after_step(state)
                if state["step"] % 100 == 0:
                    logging.info("epoch %d step %d loss %.3f", epoch, state["step"], loss.item() * cfg.accum_grad)
        valid = validate(model, valid_dl, device)
        logging.info("epoch %d valid ctc/token %.4f", epoch, valid)
        for h in hooks:
            h.end_of_epoch(state)


if __name__ == "__main__":
    main()
