"""Keyword spotting with an auxiliary CTC phone loss, trained on clean + noise-augmented speech.

Each optimizer step takes one micro-batch from each domain (two backward passes, one allreduce).
"""
import argparse

import torch
import torch.nn.functional as F
import horovod.torch as hvd

from kws.config import load_config
from kws.data import domain_loaders, eval_loader
from kws.model import KWSNet
from kws.utils import gathered_accuracy, log0, save_checkpoint, setup


def multitask_loss(model, batch, device, ctc_weight):
    feats, kw, phones, phone_len = (t.to(device) for t in batch)
    kw_logits, log_probs = model(feats)
    ce = F.cross_entropy(kw_logits, kw)
    in_len = torch.full((feats.size(0),), log_probs.size(1), dtype=torch.long, device=device)
    ctc = F.ctc_loss(log_probs.transpose(0, 1), phones, in_len, phone_len,
                     blank=log_probs.size(-1) - 1, zero_infinity=True)
    return ce + ctc_weight * ctc


def run_eval(model, loader, device):
    model.eval()
    preds, labels = [], []
    with torch.no_grad():
        for feats, kw, _, _ in loader:
            kw_logits, _ = model(feats.to(device))
            preds.append(kw_logits.argmax(-1).cpu())
            labels.append(kw)
    model.train()
    return gathered_accuracy(torch.cat(preds), torch.cat(labels))


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("-c", "--config", default=None)
    args = ap.parse_args(argv)
    cfg = load_config(args.config)
    device = setup()

    m = cfg["model"]
    model = KWSNet(m.getint("n_mels"), m.getint("n_keywords"), m.getint("n_phones"), m.getint("hidden")).to(device)
    pretrained = cfg.get("run", "pretrained")
    if pretrained and hvd.rank() == 0:
        model.load_state_dict(torch.load(pretrained, map_location="cpu"), strict=False)
        log0("loaded", pretrained)
    # ship rank 0's (possibly pretrained) weights and buffers to everyone
    model.load_state_dict(hvd.broadcast_object(model.state_dict(), root_rank=0, name="init_state"))

    o = cfg["optim"]
    optimizer = torch.optim.Adam(model.parameters(), lr=o.getfloat("lr") * hvd.size())
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         backward_passes_per_step=2)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    loaders = domain_loaders(cfg)
    test_loader = eval_loader(cfg)
    noisy_w, ctc_w, clip = o.getfloat("noisy_weight"), o.getfloat("ctc_weight"), o.getfloat("clip")
    out_dir = cfg.get("run", "out_dir")

    for epoch in range(o.getint("epochs")):
        for ld in loaders.values():
            ld.sampler.set_epoch(epoch)
        total, n = 0.0, 0
        for clean_batch, noisy_batch in zip(loaders["clean"], loaders["noisy"]):
            optimizer.zero_grad()
            l_clean = multitask_loss(model, clean_batch, device, ctc_w)
            (l_clean / (1.0 + noisy_w)).backward()
            l_noisy = multitask_loss(model, noisy_batch, device, ctc_w)
            (noisy_w * l_noisy / (1.0 + noisy_w)).backward()
            optimizer.synchronize()
            torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
            with optimizer.skip_synchronize():
                optimizer.step()
            total += (l_clean.item() + noisy_w * l_noisy.item()) / (1.0 + noisy_w)
            n += 1
        acc, n_eval = run_eval(model, test_loader, device)
        log0(f"epoch {epoch}: rank0 train loss {total / max(n, 1):.4f}, eval acc {acc:.4f} on {n_eval} utts")
        save_checkpoint(f"{out_dir}/kws_epoch{epoch}.pt", model=model.state_dict(),
                        optimizer=optimizer.state_dict(), epoch=epoch, eval_acc=acc)


if __name__ == "__main__":
    main()
