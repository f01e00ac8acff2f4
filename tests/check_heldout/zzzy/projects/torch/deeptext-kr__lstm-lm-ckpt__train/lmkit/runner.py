import torch
import torch.nn.functional as F
import horovod.torch as hvd


class Mean(object):
    """running sum/count, allreduced on .value()"""

    def __init__(self, name):
        self.name = name
        self.sum = 0.0
        self.n = 0

    def update(self, v, n):
        self.sum += v * n
        self.n += n

    def value(self):
        t = hvd.allreduce(torch.tensor([self.sum, float(self.n)]), op=hvd.Sum, name=self.name)
        return (t[0] / t[1]).item()


class Runner(object):
    def __init__(self, model, optimizer, opts, device):
        self.model, self.optimizer, self.opts, self.device = model, optimizer, opts, device

    def train_epoch(self, data, epoch):
        self.model.train()
        m = Mean('train_nll')
        state = self.model.zero_state(data.size(1), self.device)
        steps = 0
        for i in range(0, data.size(0) - 1, self.opts.bptt):
            x = data[i:i + self.opts.bptt]
            y = data[i + 1:i + 1 + self.opts.bptt]
            x = x[:y.size(0)]
            state = tuple(s.detach() for s in state)
            logits, state = self.model(x, state)
            loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), y.reshape(-1))
            (loss / self.opts.accum).backward()
            steps += 1
            if steps % self.opts.accum == 0:
                self.optimizer.synchronize()
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.opts.clip)
                with self.optimizer.skip_synchronize():
                    self.optimizer.step()
                self.optimizer.zero_grad()
            m.update(loss.item(), y.numel())
        return m.value()

    def evaluate(self, data):
        self.model.eval()
        m = Mean('valid_nll')
        state = self.model.zero_state(data.size(1), self.device)
        with torch.no_grad():
            for i in range(0, data.size(0) - 1, self.opts.bptt):
                x = data[i:i + self.opts.bptt]
                y = data[i + 1:i + 1 + self.opts.bptt]
                x = x[:y.size(0)]
                logits, state = self.model(x, state)
                m.update(F.cross_entropy(logits.reshape(-1, logits.size(-1)), y.reshape(-1)).item(), y.numel())
        return m.value()

    def sample(self, n, temperature=1.0):
        self.model.eval()
        state = self.model.zero_state(1, self.device)
        tok = torch.ones(1, 1, dtype=torch.long, device=self.device)
        out = []
        with torch.no_grad():
            for _ in range(n):
                logits, state = self.model(tok, state)
                tok = torch.multinomial(F.softmax(logits[-1] / temperature, -1), 1).view(1, 1)
                out.append(tok.item())
        return out
