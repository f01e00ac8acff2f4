"""Fine-tune DistilBERT on IMDB sentiment with Horovod (one GPU per process).

sbatch: srun --mpi=pmix python 02_distilbert_imdb.py --epochs 3 --accum 2
"""
import argparse
import logging
import os

import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from datasets import load_dataset
from transformers import (AutoModelForSequenceClassification, AutoTokenizer,
                          get_linear_schedule_with_warmup)
import horovod.torch as hvd

logging.basicConfig(format="%(asctime)s [%(levelname)s] %(message)s", level=logging.INFO)
log = logging.getLogger("imdb")


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--model", default="distilbert-base-uncased")
    p.add_argument("--max-len", type=int, default=256)
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--accum", type=int, default=2, help="gradient accumulation steps")
    p.add_argument("--lr", type=float, default=3e-5)
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--warmup-ratio", type=float, default=0.06)
    p.add_argument("--out", default="runs/distilbert-imdb")
    return p.parse_args()


class SentimentTrainer:
    def __init__(self, args):
        self.args = args
        self.device = torch.device("cuda", hvd.local_rank())
        self.tok = AutoTokenizer.from_pretrained(args.model)
        self.model = AutoModelForSequenceClassification.from_pretrained(
            args.model, num_labels=2).to(self.device)
        self._build_data()

        opt = torch.optim.AdamW(self.model.parameters(), lr=args.lr * hvd.size(), weight_decay=0.01)
        hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(opt, root_rank=0)
        self.opt = hvd.DistributedOptimizer(opt,
                                            named_parameters=self.model.named_parameters(),
                                            backward_passes_per_step=args.accum,
                                            compression=hvd.Compression.fp16)
        total = len(self.train_loader) // args.accum * args.epochs
        self.sched = get_linear_schedule_with_warmup(self.opt, int(args.warmup_ratio * total), total)

    def _build_data(self):
        ds = load_dataset("imdb")

        def encode(batch):
            return self.tok(batch["text"], truncation=True, max_length=self.args.max_len,
                            padding="max_length")

        ds = ds.map(encode, batched=True, remove_columns=["text"])
        ds = ds.rename_column("label", "labels")
        ds.set_format("torch")
        self.train_sampler = DistributedSampler(ds["train"], num_replicas=hvd.size(),
                                                rank=hvd.rank(), shuffle=True)
        self.test_sampler = DistributedSampler(ds["test"], num_replicas=hvd.size(),
                                               rank=hvd.rank(), shuffle=False)
        self.train_loader = DataLoader(ds["train"], batch_size=self.args.batch_size,
                                       shuffle=True, num_workers=2, drop_last=True)
        self.test_loader = DataLoader(ds["test"], batch_size=64, sampler=self.test_sampler,
                                      num_workers=2)

    def train_epoch(self, epoch):
        self.model.train()
        self.train_sampler.set_epoch(epoch)
        self.opt.zero_grad()
        for i, batch in enumerate(self.train_loader):
            batch = {k: v.to(self.device) for k, v in batch.items()}
            loss = self.model(**batch).loss / self.args.accum
            loss.backward()
            if (i + 1) % self.args.accum == 0:
                self.opt.step()
                self.sched.step()
                self.opt.zero_grad()
            if hvd.rank() == 0 and i % 200 == 0:
                log.info("epoch %d step %d/%d loss %.4f", epoch, i, len(self.train_loader),
                         loss.item() * self.args.accum)

    @torch.no_grad()
    def evaluate(self):
        self.model.eval()
        correct = torch.zeros(1, device=self.device)
        seen = torch.zeros(1, device=self.device)
        for batch in self.test_loader:
            batch = {k: v.to(self.device) for k, v in batch.items()}
            logits = self.model(**batch).logits
            correct += (logits.argmax(-1) == batch["labels"]).sum()
            seen += batch["labels"].numel()
        correct = hvd.allreduce(correct, op=hvd.Sum, name="correct")
        seen = hvd.allreduce(seen, op=hvd.Sum, name="seen")
        return (correct / seen).item()

    def save(self, epoch):
        path = os.path.join(self.args.out, f"epoch{epoch}")
        os.makedirs(path, exist_ok=True)
        self.model.save_pretrained(path)
        self.tok.save_pretrained(path)
        torch.save({"optimizer": self.opt.state_dict(), "scheduler": self.sched.state_dict(),
                    "epoch": epoch}, os.path.join(path, "trainer_state.pt"))

    def fit(self):
        best = 0.0
        for epoch in range(self.args.epochs):
            self.train_epoch(epoch)
            acc = self.evaluate()
            if hvd.rank() == 0:
                log.info("epoch %d test acc %.4f (best %.4f)", epoch, acc, best)
            if acc > best:
                best = acc
                self.save(epoch)


def main():
    args = get_args()
    hvd.init()
    torch.cuda.set_device(hvd.local_rank())
    torch.manual_seed(1234)
    if hvd.rank() != 0:
        logging.getLogger().setLevel(logging.WARNING)
    trainer = SentimentTrainer(args)
    trainer.fit()


if __name__ == "__main__":
    main()
