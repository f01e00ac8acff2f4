import os
import time

import torch
import horovod.torch as hvd

from .checkpoint import is_master, save_checkpoint
from .text import edit_distance, greedy_decode, VOCAB


class CTCTrainer:
    def __init__(self, model, optimizer, scheduler, device, ckpt_dir, log_every=100):
        self.model, self.optimizer, self.scheduler = model, optimizer, scheduler
        self.device = device
        self.ckpt_dir = ckpt_dir
        self.log_every = log_every
        self.ctc = torch.nn.CTCLoss(blank=0, zero_infinity=True)
        self.step = 0

    def train_epoch(self, loader, epoch):
        self.model.train()
        t0 = time.time()
        for feats, feat_lens, labels, label_lens in loader:
            feats, labels = feats.to(self.device), labels.to(self.device)
            log_probs, out_lens = self.model(feats, feat_lens)
            loss = self.ctc(log_probs.transpose(0, 1), labels, out_lens, label_lens)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            self.scheduler.step()
            self.step += 1
            if hvd.rank() == 0 and self.step % self.log_every == 0:
                print(f"[{epoch}:{self.step}] ctc {loss.item():.3f} lr {self.scheduler.get_last_lr()[0]:.2e} "
                      f"{time.time() - t0:.0f}s", flush=True)

    @torch.no_grad()
    def validate(self, loader):
        self.model.eval()
        errs, chars = 0.0, 0.0
        for feats, feat_lens, labels, label_lens in loader:
            log_probs, out_lens = self.model(feats.to(self.device), feat_lens)
            best = log_probs.argmax(-1).cpu()
            for i in range(best.shape[0]):
                hyp = greedy_decode(best[i, :out_lens[i]].tolist())
                ref = "".join(VOCAB[j] for j in labels[i, :label_lens[i]].tolist())
                errs += edit_distance(hyp, ref)
                chars += len(ref)
        totals = hvd.allreduce(torch.tensor([errs, chars]), op=hvd.Sum, name="cer")
        return (totals[0] / totals[1]).item()

    def checkpoint(self, epoch, cer):
        if is_master():
            save_checkpoint(os.path.join(self.ckpt_dir, f"epoch{epoch:03d}.pt"), self.model,
                            self.optimizer, self.scheduler, epoch, self.step, {"cer": cer})
