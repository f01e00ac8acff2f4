"""Small GPT-style language model on WikiText-103 (pre-tokenised ids), Horovod.

Token ids come from prepare_wt103.py: {train,valid}.pt, 1-D LongTensors.
    mpirun -np 16 -npernode 4 -x NCCL_DEBUG=WARN python 10_transformer_lm_wt103.py --resume ckpt/lm.pt
"""
import argparse
import math
import os
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd

parser = argparse.ArgumentParser()
parser.add_argument("--data", default="data/wt103")
parser.add_argument("--vocab", type=int, default=32000)
parser.add_argument("--d-model", type=int, default=512)
parser.add_argument("--layers", type=int, default=8)
parser.add_argument("--heads", type=int, default=8)
parser.add_argument("--seq-len", type=int, default=256)
parser.add_argument("--batch-size", type=int, default=16)
parser.add_argument("--lr", type=float, default=3e-4)
parser.add_argument("--max-steps", type=int, default=100000)
parser.add_argument("--clip", type=float, default=1.0)
parser.add_argument("--log-every", type=int, default=100)
parser.add_argument("--eval-every", type=int, default=2000)
parser.add_argument("--resume", default="")
parser.add_argument("--save", default="ckpt/lm.pt")


class LM(nn.Module):
    def __init__(self, vocab, d, n_layers, heads, max_len):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(max_len, d)
        layer = nn.TransformerEncoderLayer(d, heads, 4 * d, dropout=0.1, batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, n_layers)
        self.norm = nn.LayerNorm(d)
        self.out = nn.Linear(d, vocab, bias=False)
        self.out.weight = self.tok.weight

    def forward(self, idx):
        T = idx.size(1)
        mask = torch.triu(torch.full((T, T), float("-inf"), device=idx.device), 1)
        h = self.tok(idx) + self.pos(torch.arange(T, device=idx.device))
        return self.out(self.norm(self.blocks(h, mask=mask)))


def batchify(ids, bsz):
    n = ids.numel() // bsz
    return ids[: n * bsz].view(bsz, n)        # bsz parallel streams


def get_batch(streams, i, seq_len):
    x = streams[:, i:i + seq_len]
    y = streams[:, i + 1:i + 1 + seq_len]
    return x, y


@torch.no_grad()
def evaluate(model, streams, seq_len):
    model.eval()
    tot, n = 0.0, 0
    for i in range(0, streams.size(1) - 1 - seq_len, seq_len):
        x, y = get_batch(streams, i, seq_len)
        logits = model(x)
        tot += F.cross_entropy(logits.reshape(-1, logits.size(-1)), y.reshape(-1), reduction="sum").item()
        n += y.numel()
    model.train()
    return tot / n


def main():
    args = parser.parse_args()
    hvd.init()
    torch.cuda.set_device(hvd.local_rank())
    dev = torch.device("cuda")

    train_ids = torch.load(os.path.join(args.data, "train.pt"))
    valid_ids = torch.load(os.path.join(args.data, "valid.pt"))
    # contiguous 1/size of the corpus per rank
    per_rank = train_ids.numel() // hvd.size()
    my_ids = train_ids[hvd.rank() * per_rank:(hvd.rank() + 1) * per_rank]
    train_streams = batchify(my_ids, args.batch_size).to(dev)
    valid_streams = batchify(valid_ids, 8).to(dev)   # whole valid set on every rank

    model = LM(args.vocab, args.d_model, args.layers, args.heads, args.seq_len).to(dev)
    decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
    no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
    optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                                   {"params": no_decay, "weight_decay": 0.0}],
                                  lr=args.lr * hvd.size(), betas=(0.9, 0.95))
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         compression=hvd.Compression.fp16)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=args.lr * hvd.size(),
                                                    total_steps=args.max_steps, pct_start=0.02)

    step = 0
    if args.resume and os.path.exists(args.resume) and hvd.rank() == 0:
        ckpt = torch.load(args.resume, map_location=dev)
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        scheduler.load_state_dict(ckpt["scheduler"])
        step = ckpt["step"]
        print(f"resumed from {args.resume} at step {step}")
    step = hvd.broadcast_object(step, root_rank=0, name="step")

    n_pos = train_streams.size(1) - 1 - args.seq_len
    pos = (step * args.seq_len) % n_pos
    running, t0 = 0.0, time.time()
    model.train()
    while step < args.max_steps:
        x, y = get_batch(train_streams, pos, args.seq_len)
        pos = (pos + args.seq_len) % n_pos
        logits = model(x)
        loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), y.reshape(-1))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip)
        optimizer.step()
        scheduler.step()
        step += 1
        running += loss.item()

        if step % args.log_every == 0:
            avg = hvd.allreduce(torch.tensor(running / args.log_every), name="train_loss").item()
            running = 0.0
            if hvd.rank() == 0:
                tok_s = args.log_every * args.batch_size * args.seq_len * hvd.size() / (time.time() - t0)
                print(f"step {step} loss {avg:.3f} ppl {math.exp(avg):.1f} "
                      f"lr {scheduler.get_last_lr()[0]:.2e} {tok_s / 1e3:.0f}k tok/s", flush=True)
            t0 = time.time()

        if step % args.eval_every == 0:
            val = evaluate(model, valid_streams, args.seq_len)
            if hvd.rank() == 0:
                print(f"== step {step} valid loss {val:.3f} ppl {math.exp(val):.2f}", flush=True)
                os.makedirs(os.path.dirname(args.save), exist_ok=True)
                torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                            "scheduler": scheduler.state_dict(), "step": step}, args.save)


if __name__ == "__main__":
    main()
