import os
import time

import horovod.torch as hvd
import torch
from transformers import BartForConditionalGeneration, PreTrainedTokenizerFast

from .data import build_dataloader
from .optim import create_optimizer
from .schedule import linear_warmup_decay


class Seq2SeqTrainer:
    def __init__(self, args):
        self.args = args
        hvd.init()
        torch.manual_seed(args.seed)
        if torch.cuda.is_available():
            torch.cuda.set_device(hvd.local_rank())
            self.device = torch.device("cuda", hvd.local_rank())
        else:
            self.device = torch.device("cpu")

        self.tokenizer = PreTrainedTokenizerFast.from_pretrained(args.model_name)
        self.model = BartForConditionalGeneration.from_pretrained(args.model_name).to(self.device)
        self.train_loader, self.train_sampler = build_dataloader(
            args.train_file, self.tokenizer, args.batch_size, True, hvd.rank(), hvd.size(), args.seed)
        self.dev_loader, _ = build_dataloader(
            args.dev_file, self.tokenizer, args.batch_size, False, hvd.rank(), hvd.size())

        self.optimizer = create_optimizer(self.model, args.lr, args.weight_decay)
        hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.optimizer, root_rank=0)

        self.scaler = torch.cuda.amp.GradScaler() if args.fp16 else None
        self.total_steps = args.epochs * len(self.train_loader)
        self.warmup_steps = int(args.warmup_ratio * self.total_steps)
        self.global_step = 0

    def _set_lr(self):
        factor = linear_warmup_decay(self.global_step, self.warmup_steps, self.total_steps)
        for group in self.optimizer.param_groups:
            group["lr"] = self.args.lr * factor

    def train_step(self, batch):
        batch = {k: v.to(self.device) for k, v in batch.items()}
        self._set_lr()
        self.optimizer.zero_grad()
        if self.scaler is not None:
            with torch.cuda.amp.autocast():
                loss = self.model(**batch).loss
            self.scaler.scale(loss).backward()
            self.scaler.unscale_(self.optimizer)
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.args.max_grad_norm)
            self.scaler.step(self.optimizer)
            self.scaler.update()
        else:
            loss = self.model(**batch).loss
            loss.backward()
            self.optimizer.synchronize()
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.args.max_grad_norm)
            with self.optimizer.skip_synchronize():
                self.optimizer.step()
        self.global_step += 1
        return loss.item()

    @torch.no_grad()
    def evaluate(self):
        self.model.eval()
        nll, tokens = 0.0, 0
        for batch in self.dev_loader:
            batch = {k: v.to(self.device) for k, v in batch.items()}
            n = (batch["labels"] != -100).sum().item()
            nll += self.model(**batch).loss.item() * n
            tokens += n
        totals = hvd.allreduce(torch.tensor([nll, tokens], dtype=torch.float64), op=hvd.Sum,
                               name="dev_nll")
        self.model.train()
        return (totals[0] / totals[1]).item()

    def fit(self):
        best = float("inf")
        for epoch in range(self.args.epochs):
            self.train_sampler.set_epoch(epoch)
            self.model.train()
            tic = time.time()
            for i, batch in enumerate(self.train_loader):
                loss = self.train_step(batch)
                if hvd.rank() == 0 and self.global_step % self.args.log_every == 0:
                    print(f"epoch {epoch} step {self.global_step} loss {loss:.4f} "
                          f"lr {self.optimizer.param_groups[0]['lr']:.2e}", flush=True)
            dev_loss = self.evaluate()
            if hvd.rank() == 0:
                print(f"epoch {epoch} dev loss {dev_loss:.4f} ({time.time() - tic:.0f}s)", flush=True)
                if dev_loss < best:
                    best = dev_loss
                    out = os.path.join(self.args.output_dir, "best")
                    self.model.save_pretrained(out)
                    self.tokenizer.save_pretrained(out)
        return best
