"""Fine-tune GPT-2 small on a domain corpus (one document per line), Horovod + transformers.

horovodrun -np 16 -H gpu01:4,gpu02:4,gpu03:4,gpu04:4 python 03_lm_finetune_gpt2.py \
    --train corpus/train.txt --valid corpus/valid.txt --output_dir out/gpt2-domain
"""
import argparse
import math
import os

import torch
from torch.utils.data import Dataset, DataLoader
from torch.utils.data.distributed import DistributedSampler
from transformers import GPT2LMHeadModel, GPT2TokenizerFast, get_linear_schedule_with_warmup
import horovod.torch as hvd


class LineBlocks(Dataset):
    """Concatenate tokenised lines and cut into fixed blocks."""

    def __init__(self, path, tok, block=512):
        with open(path, encoding="utf-8") as f:
            text = [l.strip() for l in f if l.strip()]
        ids = tok("\n\n".join(text), return_attention_mask=False)["input_ids"]
        n = len(ids) // block
        self.blocks = torch.tensor(ids[: n * block]).view(n, block)

    def __len__(self):
        return self.blocks.size(0)

    def __getitem__(self, i):
        return self.blocks[i]


def get_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="gpt2")
    ap.add_argument("--train", required=True)
    ap.add_argument("--valid", required=True)
    ap.add_argument("--output_dir", default="out")
    ap.add_argument("--per_device_batch", type=int, default=4)
    ap.add_argument("--accum", type=int, default=8)
    ap.add_argument("--lr", type=float, default=5e-5)
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--warmup_ratio", type=float, default=0.06)
    return ap.parse_args()


@torch.no_grad()
def eval_ppl(model, loader, device):
    model.eval()
    nll, count = 0.0, 0
    for batch in loader:
        batch = batch.to(device)
        out = model(batch, labels=batch)
        nll += out.loss.item() * batch.numel()
        count += batch.numel()
    stats = hvd.allreduce(torch.tensor([nll, float(count)]), op=hvd.Sum, name="ppl_stats")
    model.train()
    return math.exp(stats[0].item() / stats[1].item())


def main():
    args = get_args()
    hvd.init()
    torch.cuda.set_device(hvd.rank())
    device = torch.device("cuda")

    tok = GPT2TokenizerFast.from_pretrained(args.model)
    train_ds = LineBlocks(args.train, tok)
    valid_ds = LineBlocks(args.valid, tok)
    train_sampler = DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.rank(), seed=42)
    valid_sampler = DistributedSampler(valid_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_ds, batch_size=args.per_device_batch, sampler=train_sampler, drop_last=True)
    valid_loader = DataLoader(valid_ds, batch_size=args.per_device_batch, sampler=valid_sampler)

    model = GPT2LMHeadModel.from_pretrained(args.model).to(device)
    model.gradient_checkpointing_enable()

    no_decay = ("bias", "ln_", "LayerNorm")
    groups = [
        {"params": [p for n, p in model.named_parameters() if not any(k in n for k in no_decay)], "weight_decay": 0.01},
        {"params": [p for n, p in model.named_parameters() if any(k in n for k in no_decay)], "weight_decay": 0.0},
    ]
    optimizer = torch.optim.AdamW(groups, lr=args.lr * hvd.size(), betas=(0.9, 0.98), eps=1e-6)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         backward_passes_per_step=args.accum)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)

    updates_per_epoch = len(train_loader) // args.accum
    total = updates_per_epoch * args.epochs
    scheduler = get_linear_schedule_with_warmup(optimizer, int(args.warmup_ratio * total), total)

    step = 0
    for epoch in range(args.epochs):
        train_sampler.set_epoch(epoch)
        running = 0.0
        for i, batch in enumerate(train_loader):
            batch = batch.to(device)
            loss = model(batch, labels=batch).loss / args.accum
            loss.backward()
            running += loss.item()
            if (i + 1) % args.accum == 0:
                optimizer.step()
                scheduler.step()
                optimizer.zero_grad()
                step += 1
                if step % 50 == 0:
                    avg = hvd.allreduce(torch.tensor(running / 50), name="train_loss").item()
                    running = 0.0
                    if hvd.rank() == 0:
                        print(f"step {step}/{total} loss {avg:.4f} lr {scheduler.get_last_lr()[0]:.2e}")
        ppl = eval_ppl(model, valid_loader, device)
        if hvd.rank() == 0:
            print(f"epoch {epoch} valid ppl {ppl:.2f}")
        if hvd.local_rank() == 0:
            save_to = os.path.join(args.output_dir, f"epoch{epoch}")
            model.save_pretrained(save_to)
            tok.save_pretrained(save_to)


if __name__ == "__main__":
    main()
