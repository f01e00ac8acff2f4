"""Fine-tune bert-base on a sentiment CSV with Horovod (one GPU per process).

horovodrun -np 8 python 05_bert_finetune_onecycle.py --train data/train.csv --dev data/dev.csv
"""
import argparse
import logging
import os

import pandas as pd
import torch
from torch.utils.data import Dataset, DataLoader
from torch.utils.data.distributed import DistributedSampler
from transformers import AutoTokenizer, AutoModelForSequenceClassification
import horovod.torch as hvd

logger = logging.getLogger(__name__)

CONFIG = {
    "model_name": "bert-base-uncased",
    "max_len": 128,
    "num_labels": 2,
    "weight_decay": 0.01,
    "grad_clip": 1.0,
}


class CsvTextDataset(Dataset):
    def __init__(self, path, tokenizer, max_len):
        df = pd.read_csv(path)
        self.texts = df["text"].astype(str).tolist()
        self.labels = df["label"].astype(int).tolist()
        self.tok = tokenizer
        self.max_len = max_len

    def __len__(self):
        return len(self.texts)

    def __getitem__(self, i):
        enc = self.tok(self.texts[i], truncation=True, max_length=self.max_len,
                       padding="max_length", return_tensors="pt")
        item = {k: v.squeeze(0) for k, v in enc.items()}
        item["labels"] = torch.tensor(self.labels[i])
        return item


def make_loader(ds, batch_size, shuffle):
    sampler = DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=shuffle)
    return DataLoader(ds, batch_size=batch_size, sampler=sampler, num_workers=2), sampler


def evaluate(model, loader, device):
    model.eval()
    preds, golds = [], []
    with torch.no_grad():
        for batch in loader:
            batch = {k: v.to(device) for k, v in batch.items()}
            logits = model(**batch).logits
            preds.append(logits.argmax(-1).cpu())
            golds.append(batch["labels"].cpu())
    preds = hvd.allgather(torch.cat(preds))
    golds = hvd.allgather(torch.cat(golds))
    acc = (preds == golds).float().mean().item()
    tp = ((preds == 1) & (golds == 1)).sum().item()
    fp = ((preds == 1) & (golds == 0)).sum().item()
    fn = ((preds == 0) & (golds == 1)).sum().item()
    f1 = 2 * tp / max(1, 2 * tp + fp + fn)
    return acc, f1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--train", required=True)
    ap.add_argument("--dev", required=True)
    ap.add_argument("--lr", type=float, default=2e-5)
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--batch_size", type=int, default=32)
    ap.add_argument("--output_dir", default="out/bert-sst")
    args = ap.parse_args()

    hvd.init()
    local_rank = hvd.local_rank()
    is_master = hvd.rank() == 0
    torch.cuda.set_device(local_rank)
    device = torch.device("cuda")
    logging.basicConfig(level=logging.INFO if is_master else logging.WARN)

    tokenizer = AutoTokenizer.from_pretrained(CONFIG["model_name"])
    model = AutoModelForSequenceClassification.from_pretrained(
        CONFIG["model_name"], num_labels=CONFIG["num_labels"]).to(device)

    train_loader, train_sampler = make_loader(CsvTextDataset(args.train, tokenizer, CONFIG["max_len"]),
                                              args.batch_size, True)
    dev_loader, _ = make_loader(CsvTextDataset(args.dev, tokenizer, CONFIG["max_len"]), 64, False)

    no_decay = ["bias", "LayerNorm.weight"]
    groups = [
        {"params": [p for n, p in model.named_parameters() if not any(nd in n for nd in no_decay)],
         "weight_decay": CONFIG["weight_decay"]},
        {"params": [p for n, p in model.named_parameters() if any(nd in n for nd in no_decay)],
         "weight_decay": 0.0},
    ]
    optimizer = torch.optim.AdamW(groups, lr=args.lr * hvd.size())
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    total_steps = len(train_loader) * args.epochs
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=args.lr, total_steps=total_steps,
                                                    pct_start=0.1, anneal_strategy="linear")

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    step = 0
    for epoch in range(args.epochs):
        model.train()
        train_sampler.set_epoch(epoch)
        for batch in train_loader:
            batch = {k: v.to(device) for k, v in batch.items()}
            optimizer.zero_grad()
            loss = model(**batch).loss
            loss.backward()
            optimizer.synchronize()
            torch.nn.utils.clip_grad_norm_(model.parameters(), CONFIG["grad_clip"])
            with optimizer.skip_synchronize():
                optimizer.step()
            scheduler.step()
            step += 1
            if is_master and step % 50 == 0:
                logger.info("epoch %d step %d lr %.2e", epoch, step, scheduler.get_last_lr()[0])

        acc, f1 = evaluate(model, dev_loader, device)
        logger.info("epoch %d dev acc %.4f f1 %.4f", epoch, acc, f1)
        if is_master:
            os.makedirs(args.output_dir, exist_ok=True)
            model.save_pretrained(args.output_dir)
            tokenizer.save_pretrained(args.output_dir)


if __name__ == "__main__":
    main()
