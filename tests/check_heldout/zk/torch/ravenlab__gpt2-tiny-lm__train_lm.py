"""Causal LM pre-training / fine-tuning of a tiny GPT on token shards (nanoGPT-style .bin files).

usage: horovodrun -np 8 python train_lm.py --config configs/tiny.json
"""
import argparse
import json
import math
import os
import time

import torch
import horovod.torch as hvd

from lm.model import GPT, GPTConfig
from lm.data import TokenBlocks, make_loader
from lm.evaluate import perplexity
from lm.utils import get_logger, save_checkpoint, cosine_with_warmup

parser = argparse.ArgumentParser(description="tiny GPT + horovod")
parser.add_argument("--config", default="configs/tiny.json")
parser.add_argument("--out", default="out/tiny-gpt")
parser.add_argument("--compile", action="store_true")
cli = parser.parse_args()

with open(cli.config) as f:
    cfg = json.load(f)

hvd.init()
torch.manual_seed(1337)
if torch.cuda.is_available():
    torch.cuda.set_device(hvd.local_rank())
    device = "cuda"
else:
    device = "cpu"
log = get_logger("train_lm", hvd.rank())

train_ds = TokenBlocks(os.path.join(cfg["data_dir"], "train.bin"), cfg["block_size"])
val_ds = TokenBlocks(os.path.join(cfg["data_dir"], "val.bin"), cfg["block_size"])
train_loader, train_sampler = make_loader(train_ds, cfg["micro_batch"], hvd.size(), hvd.rank(), shuffle=True)
val_loader, _ = make_loader(val_ds, cfg["micro_batch"], hvd.size(), hvd.rank(), shuffle=False)

model = GPT(GPTConfig(vocab_size=cfg["vocab_size"], block_size=cfg["block_size"],
                      n_layer=cfg["n_layer"], n_head=cfg["n_head"], n_embd=cfg["n_embd"])).to(device)
if cli.compile:
    model = torch.compile(model)

base_lr = cfg["lr"] * hvd.size()
optimizer = torch.optim.AdamW(model.parameters(), lr=base_lr, betas=(0.9, 0.95),
                              weight_decay=cfg["weight_decay"])
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                     compression=hvd.Compression.fp16)
hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)

max_steps = cfg["epochs"] * len(train_loader)
step = 0
t0 = time.time()
for epoch in range(cfg["epochs"]):
    train_sampler.set_epoch(epoch)
    model.train()
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        lr = cosine_with_warmup(step, base_lr, cfg["warmup_steps"], max_steps)
        for group in optimizer.param_groups:
            group["lr"] = lr
        _, loss = model(x, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.synchronize()
        torch.nn.utils.clip_grad_norm_(model.parameters(), cfg["grad_clip"])
        with optimizer.skip_synchronize():
            optimizer.step()
        step += 1
        if step % cfg["log_every"] == 0 and hvd.rank() == 0:
            log.info(f"step {step}/{max_steps} loss {loss.item():.4f} lr {lr:.2e} "
                     f"{(time.time() - t0) / step:.3f}s/it")
        if step % cfg["save_every"] == 0:
            save_checkpoint(os.path.join(cli.out, "ckpt.pt"), model, optimizer, step, cfg)

    val_ppl = perplexity(model, val_loader, device)
    if hvd.rank() == 0:
        log.info(f"epoch {epoch} val_ppl {val_ppl:.2f} (val_loss {math.log(val_ppl):.4f})")
