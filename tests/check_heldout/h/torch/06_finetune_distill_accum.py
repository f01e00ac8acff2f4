"""Fine-tune a DistilBERT student on a small sentiment set, distilling from a BERT teacher
that was already fine-tuned (frozen). GPUs are small (11 GB), so the per-GPU batch is 4 and
gradients are accumulated over --accum micro-batches; Horovod only allreduces every
`backward_passes_per_step` backward passes.

    horovodrun -np 4 python 06_finetune_distill_accum.py --train data/train.tsv --dev data/dev.tsv
"""
import argparse
import os

import pandas as pd
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler
from transformers import (AutoModelForSequenceClassification, AutoTokenizer,
                          get_linear_schedule_with_warmup)

import horovod.torch as hvd


class TsvDataset(Dataset):
    def __init__(self, path, tok, max_len):
        df = pd.read_csv(path, sep="\t")
        self.enc = tok(list(df["sentence"]), truncation=True, max_length=max_len,
                       padding="max_length", return_tensors="pt")
        self.labels = torch.tensor(df["label"].values)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return {"input_ids": self.enc["input_ids"][i],
                "attention_mask": self.enc["attention_mask"][i],
                "labels": self.labels[i]}


def kd_loss(student_logits, teacher_logits, labels, T=2.0, alpha=0.5):
    soft = F.kl_div(F.log_softmax(student_logits / T, -1), F.softmax(teacher_logits / T, -1),
                    reduction="batchmean") * T * T
    hard = F.cross_entropy(student_logits, labels)
    return alpha * soft + (1 - alpha) * hard


@torch.no_grad()
def accuracy(model, loader, device):
    model.eval()
    right = total = 0
    for b in loader:
        b = {k: v.to(device) for k, v in b.items()}
        logits = model(input_ids=b["input_ids"], attention_mask=b["attention_mask"]).logits
        right += (logits.argmax(-1) == b["labels"]).sum().item()
        total += b["labels"].numel()
    model.train()
    return right / total


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--train", required=True)
    ap.add_argument("--dev", required=True)
    ap.add_argument("--teacher", default="checkpoints/bert-base-sst2")
    ap.add_argument("--student", default="distilbert-base-uncased")
    ap.add_argument("--max-len", type=int, default=128)
    ap.add_argument("--micro-bs", type=int, default=4)
    ap.add_argument("--accum", type=int, default=8)
    ap.add_argument("--lr", type=float, default=2e-5)
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--out", default="distil-student")
    args = ap.parse_args()

    hvd.init()
    torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda", hvd.local_rank())
    is_main = hvd.rank() == 0

    tok = AutoTokenizer.from_pretrained(args.student)
    train_ds = TsvDataset(args.train, tok, args.max_len)
    dev_ds = TsvDataset(args.dev, tok, args.max_len)
    sampler = DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.rank(), seed=13)
    train_dl = DataLoader(train_ds, batch_size=args.micro_bs, sampler=sampler, drop_last=True)
    dev_dl = DataLoader(dev_ds, batch_size=64)  # dev set is small: every rank scores all of it

    teacher = AutoModelForSequenceClassification.from_pretrained(args.teacher).to(device).eval()
    for p in teacher.parameters():
        p.requires_grad_(False)
    student = AutoModelForSequenceClassification.from_pretrained(args.student, num_labels=2)
    student.to(device)

    # effective batch = micro_bs * accum * size; scale LR linearly with the number of workers
    no_decay = ("bias", "LayerNorm.weight")
    groups = [
        {"params": [p for n, p in student.named_parameters() if not any(k in n for k in no_decay)],
         "weight_decay": 0.01},
        {"params": [p for n, p in student.named_parameters() if any(k in n for k in no_decay)],
         "weight_decay": 0.0},
    ]
    optimizer = torch.optim.AdamW(groups, lr=args.lr * hvd.size())
    optimizer = hvd.DistributedOptimizer(optimizer,
                                         named_parameters=student.named_parameters(),
                                         backward_passes_per_step=args.accum,
                                         op=hvd.Average)
    # classifier head is randomly initialised: make all ranks start from rank 0's copy
    hvd.broadcast_parameters(student.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    updates_per_epoch = len(train_dl) // args.accum
    scheduler = get_linear_schedule_with_warmup(optimizer, int(0.1 * updates_per_epoch * args.epochs),
                                                updates_per_epoch * args.epochs)

    student.train()
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        running = 0.0
        for i, batch in enumerate(train_dl):
            if i >= updates_per_epoch * args.accum:
                break  # drop the incomplete accumulation window at the end of the epoch
            batch = {k: v.to(device) for k, v in batch.items()}
            with torch.no_grad():
                t_logits = teacher(input_ids=batch["input_ids"],
                                   attention_mask=batch["attention_mask"]).logits
            s_logits = student(input_ids=batch["input_ids"],
                               attention_mask=batch["attention_mask"]).logits
            loss = kd_loss(s_logits, t_logits, batch["labels"]) / args.accum
            loss.backward()
            running += loss.item()

            if (i + 1) % args.accum == 0:
                optimizer.synchronize()
                torch.nn.utils.clip_grad_norm_(student.parameters(), 1.0)
                with optimizer.skip_synchronize():
                    optimizer.step()
                scheduler.step()
                optimizer.zero_grad()
                update = (i + 1) // args.accum
                if is_main and update % 20 == 0:
                    print(f"epoch {epoch} update {update}/{updates_per_epoch} "
                          f"loss {running / 20:.4f} lr {scheduler.get_last_lr()[0]:.2e}")
                    running = 0.0

        acc = accuracy(student, dev_dl, device)
        if is_main:
            print(f"== epoch {epoch}: dev accuracy {acc:.4f}")
            student.save_pretrained(os.path.join(args.out, f"epoch{epoch}"))
            tok.save_pretrained(os.path.join(args.out, f"epoch{epoch}"))


if __name__ == "__main__":
    main()
