"""TextCNN sentiment classifier, multi-GPU with Horovod.

Course project that started from the CSC Puhti "PyTorch multi-GPU" exercise. The global batch is
kept fixed (so results do not depend on how many GPUs we got that day) and split over the ranks.

    srun python train_textcnn.py --train data/reviews_train.tsv --test data/reviews_test.tsv
"""
import argparse
import collections
import os
import re
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd

TOKEN_RE = re.compile(r"[a-z0-9']+")
PAD, UNK = 0, 1


def read_tsv(path):
    labels, texts = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            lab, _, txt = line.rstrip("\n").partition("\t")
            labels.append(int(lab))
            texts.append(TOKEN_RE.findall(txt.lower()))
    return labels, texts


def build_vocab(texts, max_size):
    counts = collections.Counter(tok for t in texts for tok in t)
    words = sorted(counts, key=lambda w: (-counts[w], w))[: max_size - 2]
    return {w: i + 2 for i, w in enumerate(words)}


def encode(texts, vocab, max_len):
    out = torch.full((len(texts), max_len), PAD, dtype=torch.long)
    for i, toks in enumerate(texts):
        ids = [vocab.get(t, UNK) for t in toks[:max_len]]
        out[i, : len(ids)] = torch.tensor(ids, dtype=torch.long)
    return out


class TextCNN(nn.Module):
    def __init__(self, vocab_size, emb=128, n_filters=100, kernels=(3, 4, 5), n_classes=2):
        super().__init__()
        self.emb = nn.Embedding(vocab_size, emb, padding_idx=PAD)
        self.convs = nn.ModuleList(nn.Conv1d(emb, n_filters, k) for k in kernels)
        self.drop = nn.Dropout(0.5)
        self.fc = nn.Linear(n_filters * len(kernels), n_classes)

    def forward(self, x):
        e = self.emb(x).transpose(1, 2)
        h = [F.relu(c(e)).max(dim=2).values for c in self.convs]
        return self.fc(self.drop(torch.cat(h, dim=1)))


def evaluate(model, x, y, device, bs=512):
    model.eval()
    correct = 0
    with torch.no_grad():
        for i in range(0, len(y), bs):
            logits = model(x[i:i + bs].to(device))
            correct += (logits.argmax(1).cpu() == y[i:i + bs]).sum().item()
    model.train()
    return correct / len(y)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--train", default="data/reviews_train.tsv")
    ap.add_argument("--test", default="data/reviews_test.tsv")
    ap.add_argument("--global-batch", type=int, default=256)
    ap.add_argument("--lr", type=float, default=1e-3, help="lr for the global batch")
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--max-len", type=int, default=200)
    ap.add_argument("--vocab", type=int, default=30000)
    ap.add_argument("--save-every", type=int, default=500, help="steps")
    ap.add_argument("--out", default="checkpoints")
    args = ap.parse_args()

    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda", hvd.local_rank())
    else:
        device = torch.device("cpu")
    assert args.global_batch % hvd.size() == 0, "global batch must divide by the number of ranks"
    local_batch = args.global_batch // hvd.size()

    labels, texts = read_tsv(args.train)
    vocab = build_vocab(texts, args.vocab)
    x_all = encode(texts, vocab, args.max_len)
    y_all = torch.tensor(labels)

    # every rank draws the same permutation, then takes its own strided slice;
    # trimmed so that all ranks run the same number of steps
    g = torch.Generator().manual_seed(2024)
    perm = torch.randperm(len(y_all), generator=g)
    per_rank = len(perm) // hvd.size()
    mine = perm[hvd.rank()::hvd.size()][:per_rank]
    x_train, y_train = x_all[mine], y_all[mine]

    model = TextCNN(len(vocab) + 2).to(device)
    # rank 0's freshly initialised weights go to everybody
    state = hvd.broadcast_object(model.state_dict() if hvd.rank() == 0 else None,
                                 root_rank=0, name="init_weights")
    model.load_state_dict(state)

    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters(), op=hvd.Average)

    if hvd.rank() == 0:
        test_labels, test_texts = read_tsv(args.test)
        x_test, y_test = encode(test_texts, vocab, args.max_len), torch.tensor(test_labels)
        os.makedirs(args.out, exist_ok=True)
        print(f"{hvd.size()} ranks x {local_batch} = global batch {args.global_batch}, "
              f"{per_rank} training reviews per rank", flush=True)

    step = 0
    for epoch in range(args.epochs):
        order = torch.randperm(per_rank, generator=torch.Generator().manual_seed(epoch))
        t0 = time.time()
        for i in range(0, per_rank - local_batch + 1, local_batch):
            idx = order[i:i + local_batch]
            xb, yb = x_train[idx].to(device), y_train[idx].to(device)
            opt.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            opt.step()
            step += 1
            if hvd.rank() == 0 and step % args.save_every == 0:
                torch.save({"step": step, "model": model.state_dict(), "vocab": vocab},
                           os.path.join(args.out, f"textcnn_step{step}.pt"))
        rate = torch.tensor(per_rank / (time.time() - t0))
        total_rate = hvd.allreduce(rate, op=hvd.Sum, name="reviews_per_sec").item()
        if hvd.rank() == 0:
            acc = evaluate(model, x_test, y_test, device)
            print(f"epoch {epoch}: loss {loss.item():.4f} test acc {acc:.4f} "
                  f"({total_rate:.0f} reviews/s over all ranks)", flush=True)

    if hvd.rank() == 0:
        torch.save({"step": step, "model": model.state_dict(), "vocab": vocab},
                   os.path.join(args.out, "textcnn_final.pt"))


if __name__ == "__main__":
    main()
