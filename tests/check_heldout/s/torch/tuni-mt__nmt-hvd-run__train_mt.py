"""Small Transformer NMT (fi->en subword ids), launched from Python with horovod.run.

    python train_mt.py --np 4 --data /scratch/mt/fien.spm8k.pt --out runs/fien_small

The data file is a dict {"train": [(src_ids, tgt_ids), ...], "valid": [...], "vocab": 8000} produced by
prep_data.py (sentencepiece ids, BOS=1, EOS=2, PAD=0).
"""
import argparse
import math
import os

import horovod


def parse_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--np", type=int, default=4, help="number of worker processes")
    p.add_argument("--data", default="/scratch/mt/fien.spm8k.pt")
    p.add_argument("--out", default="runs/fien_small")
    p.add_argument("--global-batch", type=int, default=256, help="sentence pairs per update, all workers")
    p.add_argument("--lr", type=float, default=7e-4, help="peak lr for --global-batch")
    p.add_argument("--warmup", type=int, default=4000)
    p.add_argument("--epochs", type=int, default=20)
    p.add_argument("--max-len", type=int, default=64)
    p.add_argument("--d-model", type=int, default=256)
    return p.parse_args(argv)


def pad_batch(pairs, max_len):
    import torch
    src = [torch.tensor(s[:max_len]) for s, _ in pairs]
    tgt = [torch.tensor(t[:max_len]) for _, t in pairs]
    pad = torch.nn.utils.rnn.pad_sequence
    return pad(src, batch_first=True), pad(tgt, batch_first=True)


def train_fn(args):
    import torch
    import torch.nn as nn
    import horovod.torch as hvd

    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    data = torch.load(args.data)
    vocab = data["vocab"]

    # a fixed number of sentence pairs per update, split over the workers: the schedule below was tuned
    # for this global batch, so the peak lr does not depend on the number of workers
    assert args.global_batch % hvd.size() == 0, "global batch must divide evenly"
    local_batch = args.global_batch // hvd.size()

    def shard(pairs, seed):
        g = torch.Generator().manual_seed(seed)
        order = torch.randperm(len(pairs), generator=g).tolist()
        per_rank = len(order) // hvd.size()            # drop the tail: equal shards, equal step counts
        mine = order[hvd.rank() * per_rank:(hvd.rank() + 1) * per_rank]
        return [pairs[i] for i in mine]

    valid = shard(data["valid"], seed=0)

    model = nn.Transformer(d_model=args.d_model, nhead=4, num_encoder_layers=3, num_decoder_layers=3,
                           dim_feedforward=4 * args.d_model, batch_first=True)
    emb = nn.Embedding(vocab, args.d_model, padding_idx=0)
    proj = nn.Linear(args.d_model, vocab)
    net = nn.ModuleDict({"transformer": model, "emb": emb, "proj": proj}).to(device)

    optimizer = torch.optim.Adam(net.parameters(), lr=args.lr, betas=(0.9, 0.98), eps=1e-9)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=net.named_parameters())

    def inv_sqrt(step):
        step = max(step, 1)
        return min(step / args.warmup, math.sqrt(args.warmup / step))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, inv_sqrt)
    hvd.broadcast_parameters(net.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    criterion = nn.CrossEntropyLoss(ignore_index=0, label_smoothing=0.1)

    def forward(src, tgt):
        src, tgt = src.to(device), tgt.to(device)
        tin, tout = tgt[:, :-1], tgt[:, 1:]
        mask = model.generate_square_subsequent_mask(tin.shape[1]).to(device)
        h = model(emb(src), emb(tin), tgt_mask=mask,
                  src_key_padding_mask=src == 0, tgt_key_padding_mask=tin == 0)
        return criterion(proj(h).reshape(-1, vocab), tout.reshape(-1))

    for epoch in range(args.epochs):
        net.train()
        train = shard(data["train"], seed=1000 + epoch)
        for i in range(0, len(train) - local_batch + 1, local_batch):
            src, tgt = pad_batch(train[i:i + local_batch], args.max_len)
            optimizer.zero_grad()
            loss = forward(src, tgt)
            loss.backward()
            optimizer.step()
            scheduler.step()

        net.eval()
        losses = []
        with torch.no_grad():
            for i in range(0, len(valid) - local_batch + 1, local_batch):
                losses.append(forward(*pad_batch(valid[i:i + local_batch], args.max_len)).item())
        # equal shards of equal batches on every worker: the mean of the workers' means is the global mean
        val_loss = hvd.allreduce(torch.tensor(sum(losses) / max(len(losses), 1)), name="val_loss").item()
        if hvd.rank() == 0:
            print(f"epoch {epoch}: valid loss {val_loss:.3f} ppl {math.exp(val_loss):.1f}", flush=True)
            os.makedirs(args.out, exist_ok=True)
            torch.save({"epoch": epoch, "net": net.state_dict(), "args": vars(args)},
                       os.path.join(args.out, "checkpoint_last.pt"))
    return val_loss


if __name__ == "__main__":
    args = parse_args()
    results = horovod.run(train_fn, args=(args,), np=args.np, use_gloo=True)
    print("valid loss per worker:", results)
