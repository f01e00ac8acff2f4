# Fine-tune a BERT-style encoder for news topic classification with Horovod.
# Student project, adapted from my single-GPU notebook.
import os
import sys
import math
import logging
import argparse

import pandas as pd
import torch
from torch.utils.data import Dataset, DataLoader
from torch.utils.data.distributed import DistributedSampler
from transformers import AutoTokenizer, AutoModelForSequenceClassification
from transformers import get_linear_schedule_with_warmup
import horovod.torch as hvd

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
log = logging.getLogger("bert")


class NewsDataset(Dataset):
    def __init__(self, csv_path, tokenizer, max_len=256):
        df = pd.read_csv(csv_path)
        self.texts = df["text"].astype(str).tolist()
        self.labels = df["label"].astype(int).tolist()
        self.tok = tokenizer
        self.max_len = max_len

    def __len__(self):
        return len(self.texts)

    def __getitem__(self, idx):
        enc = self.tok(self.texts[idx], truncation=True, max_length=self.max_len,
                       padding="max_length", return_tensors="pt")
        item = {k: v.squeeze(0) for k, v in enc.items()}
        item["labels"] = torch.tensor(self.labels[idx])
        return item


def get_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_name", default="bert-base-uncased")
    parser.add_argument("--train_csv", default="data/ag_news_train.csv")
    parser.add_argument("--dev_csv", default="data/ag_news_dev.csv")
    parser.add_argument("--num_labels", type=int, default=4)
    parser.add_argument("--batch_size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=3e-5)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--warmup_ratio", type=float, default=0.1)
    parser.add_argument("--output_dir", default="outputs/bert_news")
    return parser.parse_args()


def evaluate(model, loader, device):
    model.eval()
    correct = torch.zeros(1, device=device)
    total = torch.zeros(1, device=device)
    loss_sum = torch.zeros(1, device=device)
    with torch.no_grad():
        for batch in loader:
            batch = {k: v.to(device) for k, v in batch.items()}
            out = model(**batch)
            loss_sum += out.loss * batch["labels"].size(0)
            correct += (out.logits.argmax(-1) == batch["labels"]).sum()
            total += batch["labels"].size(0)
    correct = hvd.allreduce(correct, op=hvd.Sum, name="dev_correct")
    total = hvd.allreduce(total, op=hvd.Sum, name="dev_total")
    loss_sum = hvd.allreduce(loss_sum, op=hvd.Sum, name="dev_loss")
    model.train()
    return (loss_sum / total).item(), (correct / total).item()


def main():
    args = get_args()
    hvd.init()
    torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda")

    tokenizer = AutoTokenizer.from_pretrained(args.model_name)
    train_ds = NewsDataset(args.train_csv, tokenizer)
    dev_ds = NewsDataset(args.dev_csv, tokenizer)

    train_sampler = DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.rank())
    dev_sampler = DistributedSampler(dev_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_ds, batch_size=args.batch_size, sampler=train_sampler, num_workers=2)
    dev_loader = DataLoader(dev_ds, batch_size=64, sampler=dev_sampler, num_workers=2)

    model = AutoModelForSequenceClassification.from_pretrained(args.model_name, num_labels=args.num_labels)
    model.to(device)

    no_decay = ["bias", "LayerNorm.weight"]
    grouped = [
        {"params": [p for n, p in model.named_parameters() if not any(nd in n for nd in no_decay)],
         "weight_decay": 0.01},
        {"params": [p for n, p in model.named_parameters() if any(nd in n for nd in no_decay)],
         "weight_decay": 0.0},
    ]
    optimizer = torch.optim.AdamW(grouped, lr=args.lr, eps=1e-8)

    total_steps = len(train_loader) * args.epochs
    warmup_steps = int(args.warmup_ratio * total_steps)
    scheduler = get_linear_schedule_with_warmup(optimizer, warmup_steps, total_steps)

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

    best_acc = 0.0
    step = 0
    for epoch in range(args.epochs):
        train_sampler.set_epoch(epoch)
        model.train()
        for batch in train_loader:
            batch = {k: v.to(device) for k, v in batch.items()}
            out = model(**batch)
            optimizer.zero_grad()
            out.loss.backward()
            optimizer.step()
            scheduler.step()
            step += 1
            if step % 100 == 0:
                avg_loss = hvd.allreduce(out.loss.detach(), name="train_loss").item()
                if hvd.rank() == 0:
                    log.info("epoch %d step %d loss %.4f lr %.2e", epoch, step,
                             avg_loss, scheduler.get_last_lr()[0])

        dev_loss, dev_acc = evaluate(model, dev_loader, device)
        if hvd.rank() == 0:
            log.info("epoch %d dev_loss %.4f dev_acc %.4f", epoch, dev_loss, dev_acc)

        if dev_acc > best_acc:
            best_acc = dev_acc
            os.makedirs(args.output_dir, exist_ok=True)
            model.save_pretrained(args.output_dir)
            tokenizer.save_pretrained(args.output_dir)
            torch.save({"epoch": epoch, "optimizer": optimizer.state_dict(),
                        "scheduler": scheduler.state_dict()},
                       os.path.join(args.output_dir, "trainer_state.pt"))

    if hvd.rank() == 0:
        log.info("best dev acc %.4f", best_acc)


if __name__ == "__main__":
    main()
