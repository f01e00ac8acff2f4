# Transformer-base on WMT16 En-Ro, Horovod data parallel.
# Adapted from our single-GPU script; run with: horovodrun -np 4 python train.py --config configs/enro.yaml
import argparse
import math
import os
import pickle
import random
from collections import Counter

import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd

PAD, BOS, EOS, UNK = 0, 1, 2, 3

parser = argparse.ArgumentParser(description="wmt16 transformer")
parser.add_argument("--train-src", default="wmt16/train.en")
parser.add_argument("--train-tgt", default="wmt16/train.ro")
parser.add_argument("--dev-src", default="wmt16/dev.en")
parser.add_argument("--dev-tgt", default="wmt16/dev.ro")
parser.add_argument("--vocab-cache", default="wmt16/vocab.pkl")
parser.add_argument("--max-tokens", type=int, default=3584)
parser.add_argument("--lr", type=float, default=7e-4)
parser.add_argument("--warmup", type=int, default=4000)
parser.add_argument("--epochs", type=int, default=20)
parser.add_argument("--smoothing", type=float, default=0.1)
parser.add_argument("--ckpt", default="ckpt/transformer.pt")
parser.add_argument("--beam", type=int, default=1)


def load_lines(path):
    with open(path, encoding="utf-8") as f:
        return [l.split() for l in f]


def get_vocab(lines, cache, size=32000):
    if os.path.exists(cache):
        return pickle.load(open(cache, "rb"))
    cnt = Counter(w for l in lines for w in l)
    itos = ["<pad>", "<s>", "</s>", "<unk>"] + [w for w, _ in cnt.most_common(size)]
    vocab = {w: i for i, w in enumerate(itos)}
    pickle.dump(vocab, open(cache, "wb"))
    return vocab


def to_ids(lines, vocab, bos=False):
    return [([BOS] if bos else []) + [vocab.get(w, UNK) for w in l][:200] + [EOS] for l in lines]


def make_batches(src, tgt, max_tokens):
    idx = sorted(range(len(src)), key=lambda i: len(src[i]))
    out, cur, longest = [], [], 0
    for i in idx:
        longest = max(longest, len(src[i]), len(tgt[i]))
        if (len(cur) + 1) * longest > max_tokens:
            out.append(cur)
            cur, longest = [], max(len(src[i]), len(tgt[i]))
        cur.append(i)
    return out + [cur] if cur else out


def pad(seqs):
    return nn.utils.rnn.pad_sequence([torch.tensor(s) for s in seqs], batch_first=True, padding_value=PAD)


class Model(nn.Module):
    def __init__(self, v, d=512):
        super().__init__()
        self.d = d
        self.emb = nn.Embedding(v, d, padding_idx=PAD)
        self.tf = nn.Transformer(d, 8, 6, 6, 2048, 0.1, batch_first=True)
        self.out = nn.Linear(d, v)

    def forward(self, s, t):
        m = self.tf.generate_square_subsequent_mask(t.size(1)).to(s.device)
        e = lambda x: self.emb(x) * math.sqrt(self.d)
        return self.out(self.tf(e(s), e(t), tgt_mask=m, src_key_padding_mask=s.eq(PAD),
                                tgt_key_padding_mask=t.eq(PAD)))


def bleu(hyps, refs):
    pn = []
    for n in range(1, 5):
        m = t = 0
        for h, r in zip(hyps, refs):
            hc = Counter(tuple(h[i:i + n]) for i in range(len(h) - n + 1))
            rc = Counter(tuple(r[i:i + n]) for i in range(len(r) - n + 1))
            m += sum((hc & rc).values())
            t += max(len(h) - n + 1, 0)
        pn.append(m / t if t else 0)
    if min(pn) == 0:
        return 0.0
    hl, rl = sum(map(len, hyps)), sum(map(len, refs))
    return 100 * math.exp(min(0, 1 - rl / hl) + sum(map(math.log, pn)) / 4)


def main():
    args = parser.parse_args()
    hvd.init()
    torch.cuda.set_device(hvd.local_rank())
    dev = torch.device("cuda")

    tr_s, tr_t = load_lines(args.train_src), load_lines(args.train_tgt)
    if hvd.rank() == 0:
        get_vocab(tr_s + tr_t, args.vocab_cache)
    hvd.barrier()
    vocab = get_vocab(tr_s + tr_t, args.vocab_cache)
    tr_s, tr_t = to_ids(tr_s, vocab), to_ids(tr_t, vocab, bos=True)
    dv_s, dv_t = to_ids(load_lines(args.dev_src), vocab), to_ids(load_lines(args.dev_tgt), vocab, bos=True)

    model = Model(len(vocab)).to(dev)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr, betas=(0.9, 0.98))
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda u: min((u + 1) / args.warmup, (args.warmup / (u + 1)) ** 0.5))

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root=0)
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())

    batches = make_batches(tr_s, tr_t, args.max_tokens)
    dev_batches = make_batches(dv_s, dv_t, args.max_tokens)
    n_local = len(batches) // hvd.size()
    best = -1.0
    for epoch in range(args.epochs):
        random.Random(epoch).shuffle(batches)
        mine = batches[hvd.rank() * n_local:(hvd.rank() + 1) * n_local]
        model.train()
        for step, b in enumerate(mine):
            s, t = pad([tr_s[i] for i in b]).to(dev), pad([tr_t[i] for i in b]).to(dev)
            logits = model(s, t[:, :-1])
            loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), t[:, 1:].reshape(-1),
                                   ignore_index=PAD, label_smoothing=args.smoothing)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            if hvd.rank() == 0 and step % 500 == 0:
                print(f"ep {epoch} step {step}/{len(mine)} loss {loss.item():.3f} lr {sched.get_last_lr()[0]:.2e}")

        model.eval()
        hyps, refs = [], []
        with torch.no_grad():
            for b in dev_batches[hvd.rank()::hvd.size()]:
                s = pad([dv_s[i] for i in b]).to(dev)
                ys = torch.full((s.size(0), 1), BOS, device=dev)
                for _ in range(max(len(dv_t[i]) for i in b) + 5):
                    ys = torch.cat([ys, model(s, ys)[:, -1:].argmax(-1)], 1)
                for row, i in zip(ys[:, 1:].tolist(), b):
                    hyps.append(row[:row.index(EOS)] if EOS in row else row)
                    refs.append(dv_t[i][1:-1])
        gathered = hvd.allgather_object((hyps, refs))
        if hvd.rank() == 0:
            all_h = [h for g in gathered for h in g[0]]
            all_r = [r for g in gathered for r in g[1]]
            score = bleu(all_h, all_r)
            print(f"epoch {epoch}: dev BLEU {score:.2f} on {len(all_h)} sentences")
            if score > best:
                best = score
                os.makedirs(os.path.dirname(args.ckpt), exist_ok=True)
                torch.save({"model": model.state_dict(), "epoch": epoch, "bleu": score}, args.ckpt)


if __name__ == "__main__":
    main()
