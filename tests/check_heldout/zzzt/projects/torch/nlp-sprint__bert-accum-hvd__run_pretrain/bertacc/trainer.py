import time

import torch
import torch.nn as nn
import horovod.torch as hvd


class MiniBert(nn.Module):
    def __init__(self, vocab, hidden, layers, seq_len):
        super().__init__()
        self.tok = nn.Embedding(vocab, hidden)
        self.pos = nn.Parameter(torch.zeros(1, seq_len, hidden))
        layer = nn.TransformerEncoderLayer(hidden, 4, hidden * 4, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, layers)
        self.norm = nn.LayerNorm(hidden)
        self.lm = nn.Linear(hidden, vocab)

    def forward(self, ids):
        return self.lm(self.norm(self.enc(self.tok(ids) + self.pos[:, :ids.size(1)])))


class PretrainLoop:
    def __init__(self, args, model, optimizer, scheduler, scaler, device):
        self.args, self.model, self.optimizer = args, model, optimizer
        self.scheduler, self.scaler, self.device = scheduler, scaler, device
        self.crit = nn.CrossEntropyLoss(ignore_index=-100)

    def micro_step(self, ids, labels):
        with torch.autocast(device_type="cuda", enabled=self.args.fp16):
            logits = self.model(ids.to(self.device))
            loss = self.crit(logits.view(-1, logits.size(-1)).float(), labels.to(self.device).view(-1))
        self.scaler.scale(loss / self.args.gradient_accumulation_steps).backward()
        return loss.detach()

    def apply_update(self):
        self.optimizer.synchronize()
        self.scaler.unscale_(self.optimizer)
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.args.max_grad_norm)
        with self.optimizer.skip_synchronize():
            self.scaler.step(self.optimizer)
        self.scaler.update()
        self.scheduler.step()
        self.optimizer.zero_grad(set_to_none=True)

    def run(self, loader, on_save):
        a = self.args
        step, micro, t0, run_loss = 0, 0, time.time(), []
        self.model.train()
        while step < a.max_steps:
            for ids, labels in loader:
                run_loss.append(self.micro_step(ids, labels))
                micro += 1
                if micro % a.gradient_accumulation_steps:
                    continue
                self.apply_update()
                step += 1
                if step % a.log_freq == 0:
                    loss = hvd.allreduce(torch.stack(run_loss).mean().cpu(), name="loss").item()
                    seq_s = a.log_freq * a.gradient_accumulation_steps * a.train_batch_size / (time.time() - t0)
                    if hvd.rank() == 0:
                        print("step %d loss %.4f lr %.2e | %.1f seq/s/rank %.1f seq/s total"
                              % (step, loss, self.scheduler.get_last_lr()[0], seq_s, seq_s * hvd.size()))
                    run_loss, t0 = [], time.time()
                if step % a.save_steps == 0:
                    on_save(step)
                if step >= a.max_steps:
                    break
        return step
