"""GRU char LM on a single text file, horovod data parallel.

mpirun -np 4 python lm_hvd.py corpus.txt
"""
import sys, os, math, time
import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd

TEXT = sys.argv[1] if len(sys.argv) > 1 else 'corpus.txt'
OUT_DIR = os.environ.get('OUT_DIR', 'runs/gru_lm')
BATCH = 64          # streams per worker
SEQ = 128           # tbptt window
HID = 512
EMB = 128
LR = 0.05          # gradients are SUMMED over workers below (same as lr * size with averaging)
CLIP = 1.0
STEPS_PER_CKPT = 500
EPOCHS = int(os.environ.get('EPOCHS', 10))

hvd.init()
use_cuda = torch.cuda.is_available()
if use_cuda:
    torch.cuda.set_device(hvd.local_rank())
dev = torch.device('cuda' if use_cuda else 'cpu')
torch.manual_seed(42)

raw = open(TEXT, encoding='utf-8', errors='ignore').read()
chars = sorted(set(raw))
stoi = {c: i for i, c in enumerate(chars)}
data = torch.tensor([stoi[c] for c in raw], dtype=torch.long)
n_val = len(data) // 20
train_ids, val_ids = data[:-n_val], data[-n_val:]

# my chunk of the text: torch.chunk over workers, equal length (drop the tail)
def my_chunk(ids):
    per = len(ids) // hvd.size()
    ids = ids[:per * hvd.size()]
    return torch.chunk(ids, hvd.size())[hvd.rank()]

def to_streams(ids, bsz):
    n = len(ids) // bsz
    return ids[:n * bsz].view(bsz, n)            # (B, T) - batch first

train_s = to_streams(my_chunk(train_ids), BATCH).to(dev)
val_s = to_streams(my_chunk(val_ids), 16).to(dev)


class GRULM(nn.Module):
    def __init__(self, V):
        super().__init__()
        self.emb = nn.Embedding(V, EMB)
        self.gru = nn.GRU(EMB, HID, num_layers=2, batch_first=True, dropout=0.1)
        self.out = nn.Linear(HID, V)

    def forward(self, x, h=None):
        y, h = self.gru(self.emb(x), h)
        return self.out(y), h


model = GRULM(len(chars)).to(dev)
opt = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9)
opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters(), op=hvd.Sum)
hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(opt, root_rank=0)

if hvd.rank() == 0:
    os.makedirs(OUT_DIR, exist_ok=True)
    print(f'{hvd.size()} workers, vocab {len(chars)}, {train_s.shape[1] // SEQ} windows/epoch/worker')


def run_eval():
    model.eval()
    tot = torch.zeros(2, dtype=torch.float64)
    h = None
    with torch.no_grad():
        for t in range(0, val_s.size(1) - 1, SEQ):
            x = val_s[:, t:t + SEQ]
            y = val_s[:, t + 1:t + 1 + SEQ]
            x = x[:, :y.size(1)]
            logits, h = model(x, h)
            tot[0] += F.cross_entropy(logits.reshape(-1, logits.size(-1)), y.reshape(-1), reduction='sum').item()
            tot[1] += y.numel()
    tot = hvd.allreduce(tot, op=hvd.Sum, name='val_tot')
    model.train()
    return (tot[0] / tot[1]).item()


step = 0
for ep in range(EPOCHS):
    h = None
    t0 = time.time()
    for t in range(0, train_s.size(1) - 1, SEQ):
        x = train_s[:, t:t + SEQ]
        y = train_s[:, t + 1:t + 1 + SEQ]
        x = x[:, :y.size(1)]
        if h is not None:
            h = h.detach()
        logits, h = model(x, h)
        loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.synchronize()
        nn.utils.clip_grad_norm_(model.parameters(), CLIP * hvd.size())
        with opt.skip_synchronize():
            opt.step()
        step += 1
        if hvd.rank() == 0 and step % 100 == 0:
            print(f'ep {ep} step {step} loss {loss.item():.3f} ({time.time() - t0:.0f}s)')
        if hvd.rank() == 0 and step % STEPS_PER_CKPT == 0:
            torch.save({'model': model.state_dict(), 'opt': opt.state_dict(), 'step': step, 'chars': chars},
                       os.path.join(OUT_DIR, f'ckpt_{step}.pt'))
    vl = run_eval()
    if hvd.rank() == 0:
        print(f'== epoch {ep}: val loss {vl:.4f}  ppl {math.exp(vl):.2f}  bpc {vl / math.log(2):.3f}')

if hvd.rank() == 0:
    torch.save({'model': model.state_dict(), 'chars': chars, 'step': step}, os.path.join(OUT_DIR, 'final.pt'))
    # sample
    model.eval()
    idx = torch.tensor([[stoi.get('\n', 0)]], device=dev)
    h, out = None, []
    with torch.no_grad():
        for _ in range(400):
            logits, h = model(idx, h)
            p = F.softmax(logits[:, -1] / 0.9, dim=-1)
            idx = torch.multinomial(p, 1)
            out.append(chars[idx.item()])
    print(''.join(out))
