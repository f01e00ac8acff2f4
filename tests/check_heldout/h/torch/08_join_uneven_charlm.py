"""Character-level LSTM language model on a directory of text files.

The corpus is split by file, and the files have very different lengths, so workers run
different numbers of batches per epoch. hvd.join() lets a worker that runs out of data wait
(contributing nothing) until the others are done, instead of deadlocking in the allreduce.

SLURM:  srun --ntasks-per-node=4 --gpus-per-node=4 python 08_join_uneven_charlm.py corpus/
"""
import os
import sys

# srun starts one task per GPU; show each task only its own device
os.environ["CUDA_VISIBLE_DEVICES"] = os.environ.get("SLURM_LOCALID", "0")

import glob  # noqa: E402
import math  # noqa: E402
import random  # noqa: E402

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import horovod.torch as hvd  # noqa: E402

CORPUS = sys.argv[1] if len(sys.argv) > 1 else "corpus"
SEQ, BATCH, EPOCHS, LR, CLIP = 256, 64, 10, 2e-3, 0.5
VOCAB = 256  # raw bytes

hvd.init()
device = torch.device("cuda:0")
rank, world = hvd.rank(), hvd.size()


class CharLSTM(nn.Module):
    def __init__(self, emb=128, hidden=768, layers=3):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, emb)
        self.rnn = nn.LSTM(emb, hidden, layers, batch_first=True, dropout=0.2)
        self.out = nn.Linear(hidden, VOCAB)

    def forward(self, x):
        h, _ = self.rnn(self.emb(x))
        return self.out(h)


def batches_from(paths, shuffle):
    """Yield (inp, tgt) byte batches from the given files, in file order."""
    paths = list(paths)
    if shuffle:
        random.shuffle(paths)
    buf = []
    for p in paths:
        with open(p, "rb") as f:
            data = torch.frombuffer(bytearray(f.read()), dtype=torch.uint8).long()
        n = (len(data) - 1) // SEQ
        for i in range(n):
            buf.append(data[i * SEQ:(i + 1) * SEQ + 1])
            if len(buf) == BATCH:
                chunk = torch.stack(buf)
                buf = []
                yield chunk[:, :-1], chunk[:, 1:]


all_files = sorted(glob.glob(os.path.join(CORPUS, "*.txt")))
val_files = all_files[::20]
train_files = [f for f in all_files if f not in set(val_files)]
my_train = train_files[rank::world]
my_val = val_files[rank::world]
random.seed(1000 + rank)

model = CharLSTM().to(device)
opt = torch.optim.Adam(model.parameters(), lr=LR * world)
opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(opt, root_rank=0)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)
xent = nn.CrossEntropyLoss(reduction="sum")


def run_validation():
    model.eval()
    tot = torch.zeros(2, dtype=torch.float64)
    with torch.no_grad():
        for inp, tgt in batches_from(my_val, shuffle=False):
            inp, tgt = inp.to(device), tgt.to(device)
            tot[0] += xent(model(inp).reshape(-1, VOCAB), tgt.reshape(-1)).item()
            tot[1] += tgt.numel()
    model.train()
    tot = hvd.allreduce(tot, op=hvd.Sum, name="val_nll")
    return (tot[0] / tot[1]).item()


for epoch in range(EPOCHS):
    nll_sum, n_tok, steps = 0.0, 0, 0
    for inp, tgt in batches_from(my_train, shuffle=True):
        inp, tgt = inp.to(device), tgt.to(device)
        opt.zero_grad()
        loss_sum = xent(model(inp).reshape(-1, VOCAB), tgt.reshape(-1))
        (loss_sum / tgt.numel()).backward()
        opt.synchronize()
        nn.utils.clip_grad_norm_(model.parameters(), CLIP)
        with opt.skip_synchronize():
            opt.step()
        nll_sum += loss_sum.item()
        n_tok += tgt.numel()
        steps += 1

    # this worker is out of data for this epoch; wait for the rest
    last_rank = hvd.join()
    sched.step()

    totals = hvd.allreduce(torch.tensor([nll_sum, float(n_tok), float(steps)], dtype=torch.float64),
                           op=hvd.Sum, name="train_nll")
    train_bpc = (totals[0] / totals[1]).item() / math.log(2)
    val_bpc = run_validation() / math.log(2)
    if rank == 0:
        print(f"epoch {epoch}: train {train_bpc:.3f} bpc, val {val_bpc:.3f} bpc, "
              f"{int(totals[2])} steps over all workers (last to finish: rank {last_rank})")
        torch.save({"epoch": epoch, "model": model.state_dict(), "opt": opt.state_dict()},
                   f"charlstm_epoch{epoch}.pt")
