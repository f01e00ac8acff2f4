import math
import time

import torch
import torch.nn as nn

from .data import get_batch
from .model import repackage_hidden
from . import distutil


class Trainer(object):
    def __init__(self, model, optimizer, args):
        self.model = model
        self.optimizer = optimizer
        self.args = args
        self.criterion = nn.CrossEntropyLoss()

    def _to(self, t):
        return t.cuda() if self.args.cuda else t

    def train_epoch(self, data, epoch):
        self.model.train()
        total, n = 0., 0
        log_loss, t0 = 0., time.time()
        hidden = self.model.init_hidden(self.args.batch_size)
        for batch, i in enumerate(range(0, data.size(0) - 1, self.args.bptt)):
            x, y = get_batch(data, i, self.args.bptt)
            x, y = self._to(x), self._to(y)
            hidden = repackage_hidden(hidden)
            self.optimizer.zero_grad()
            out, hidden = self.model(x, hidden)
            loss = self.criterion(out, y)
            loss.backward()
            # clip the averaged gradient, not the local one
            self.optimizer.synchronize()
            nn.utils.clip_grad_norm_(self.model.parameters(), self.args.clip)
            with self.optimizer.skip_synchronize():
                self.optimizer.step()
            total += loss.item() * y.numel()
            n += y.numel()
            log_loss += loss.item()
            if batch % self.args.log_interval == 0 and batch > 0 and distutil.is_master():
                cur = log_loss / self.args.log_interval
                print('| epoch %3d | batch %5d | %5.1f ms/batch | loss %5.2f | ppl %8.2f' % (
                    epoch, batch, (time.time() - t0) * 1000 / self.args.log_interval, cur, math.exp(cur)))
                log_loss, t0 = 0., time.time()
        return distutil.global_mean(total, n, 'train_loss')

    def evaluate(self, data):
        self.model.eval()
        total, n = 0., 0
        hidden = self.model.init_hidden(data.size(1))
        with torch.no_grad():
            for i in range(0, data.size(0) - 1, self.args.bptt):
                x, y = get_batch(data, i, self.args.bptt)
                x, y = self._to(x), self._to(y)
                out, hidden = self.model(x, hidden)
                hidden = repackage_hidden(hidden)
                total += self.criterion(out, y).item() * y.numel()
                n += y.numel()
        # token-weighted mean over all workers' pieces of the valid set
        return distutil.global_mean(total, n, 'val_loss')

    def sample(self, vocab, length, prime='\n', temperature=0.8):
        self.model.eval()
        hidden = self.model.init_hidden(1)
        ids = vocab.encode(prime) or [0]
        out_ids = list(ids)
        with torch.no_grad():
            x = self._to(torch.tensor(ids, dtype=torch.long).view(-1, 1))
            for _ in range(length):
                logits, hidden = self.model(x, hidden)
                probs = torch.softmax(logits[-1] / temperature, dim=-1)
                nxt = torch.multinomial(probs, 1).item()
                out_ids.append(nxt)
                x = self._to(torch.tensor([[nxt]], dtype=torch.long))
        return vocab.decode(out_ids)
