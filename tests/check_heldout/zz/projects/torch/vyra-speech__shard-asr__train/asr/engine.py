import time

import torch
import torch.nn as nn


def greedy_errors(logp, flen, targets, tlen):
    """Rough token error count: mismatches after collapsing repeats and blanks."""
    errors, offset = 0, 0
    best = logp.argmax(-1)
    for b in range(best.size(0)):
        seq = best[b, :flen[b]].tolist()
        hyp = [c for i, c in enumerate(seq) if c != 0 and (i == 0 or c != seq[i - 1])]
        ref = targets[offset:offset + tlen[b]].tolist()
        offset += tlen[b]
        errors += sum(h != r for h, r in zip(hyp, ref)) + abs(len(hyp) - len(ref))
    return errors


class Engine:
    def __init__(self, model, optimizer, device, clip=5.0, log_every=50, verbose=True):
        self.model, self.opt, self.device = model, optimizer, device
        self.ctc = nn.CTCLoss(blank=0, zero_infinity=True)
        self.clip, self.log_every, self.verbose = clip, log_every, verbose

    def train_epoch(self, loader, epoch):
        self.model.train()
        t0 = time.time()
        for i, (x, flen, y, tlen) in enumerate(loader):
            x = x.to(self.device)
            logp = self.model(x)
            loss = self.ctc(logp.transpose(0, 1), y, flen, tlen)
            self.opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(self.model.parameters(), self.clip)
            self.opt.step()
            if self.verbose and i % self.log_every == 0:
                print(f"epoch {epoch} iter {i} ctc {loss.item():.3f} {time.time() - t0:.0f}s")

    @torch.no_grad()
    def evaluate(self, loader):
        self.model.eval()
        loss_sum, err, tokens, n = 0.0, 0, 0, 0
        for x, flen, y, tlen in loader:
            logp = self.model(x.to(self.device))
            loss_sum += self.ctc(logp.transpose(0, 1), y, flen, tlen).item()
            err += greedy_errors(logp.cpu(), flen, y, tlen)
            tokens += int(tlen.sum())
            n += 1
        return loss_sum / max(n, 1), err / max(tokens, 1)
