"""Gradient accumulation written as an inner loop of micro-batches (`for micro in range(args.accum):
loss.backward()`, then one `optimizer.step()`), under a torch DistributedOptimizer left at
backward_passes_per_step=1: Horovod's hook raises AssertionError at the second backward() on more than one
rank (tried in the blind set za with `horovodrun -np 2`), so step 5 is wrong and, with the count an
option's declared default above 1, the crash finding reports it. Told the count, or with a count of 1, it is
fine.

Written from scratch for these tests: a small language-model project, `pretrain.py` and `lmkit/`."""
from crash_scripts import Source, check_project
from hvdkit.check import OK, WRONG

PRETRAIN = Source('''
    """Tiny LM pre-training.  horovodrun -np 8 python pretrain.py --accum 4"""
    import argparse

    import torch
    import horovod.torch as hvd

    from lmkit.data import TokenStream
    from lmkit.model import TinyLM

    parser = argparse.ArgumentParser()
    parser.add_argument("--accum", type=int, default=ACCUM)
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--steps", type=int, default=1000)
    args = parser.parse_args()

    hvd.init()
    torch.set_num_threads(1)
    stream = TokenStream("corpus.bin", hvd.rank(), hvd.size())
    model = TinyLM()
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr * hvd.size())
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters()WRAP_ARGS)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    for step in range(args.steps):
        optimizer.zero_grad()
        for micro in range(args.accum):
            loss = model(*stream.batch()) / args.accum
            loss.backward()
        optimizer.step()
        if step % 100 == 0:
            mean = hvd.allreduce(loss.detach() * args.accum, name="loss")
            if hvd.rank() == 0:
                print(step, mean.item())
                torch.save(model.state_dict(), "lm.pt")
''')

DATA = '''
    import numpy as np
    import torch


    class TokenStream:
        def __init__(self, path, rank, world, block=64, batch=8):
            tokens = np.fromfile(path, dtype=np.uint16)
            self.tokens = torch.from_numpy(tokens[rank::world].astype(np.int64))
            self.block, self.batch = block, batch

        def batch(self):
            i = torch.randint(0, len(self.tokens) - self.block - 1, (self.batch,))
            x = torch.stack([self.tokens[j:j + self.block] for j in i])
            y = torch.stack([self.tokens[j + 1:j + 1 + self.block] for j in i])
            return x, y
'''

MODEL = '''
    import torch


    class TinyLM(torch.nn.Module):
        def __init__(self, vocab=4096, dim=128):
            super().__init__()
            self.emb = torch.nn.Embedding(vocab, dim)
            self.head = torch.nn.Linear(dim, vocab)

        def forward(self, x, y):
            logits = self.head(self.emb(x))
            return torch.nn.functional.cross_entropy(logits.view(-1, logits.size(-1)), y.view(-1))
'''


def check(tmp_path, accum="4", wrap_args=""):
    files = {"pretrain.py": PRETRAIN.replace("ACCUM", accum).replace("WRAP_ARGS", wrap_args),
             "lmkit/__init__.py": "", "lmkit/data.py": DATA, "lmkit/model.py": MODEL}
    crash, _, found = check_project(tmp_path, files, "pretrain.py")
    return crash, found[5]


def test_micro_batches_under_one_pass_per_step_crash(tmp_path):
    crash, f5 = check(tmp_path)
    line = next(i for i, ln in enumerate((tmp_path / "pretrain.py").read_text().splitlines(), 1)
                if "loss.backward()" in ln)
    assert crash and crash["line"] == line and crash["error"].startswith("AssertionError"), crash
    assert f5.verdict == WRONG and "backward_passes_per_step=args.accum" in f5.fix, f5


def test_telling_horovod_the_count_is_fine(tmp_path):
    crash, f5 = check(tmp_path, wrap_args=", backward_passes_per_step=args.accum")
    assert crash is None and f5.verdict == OK, (crash, f5)


def test_one_micro_batch_accumulates_nothing(tmp_path):
    crash, f5 = check(tmp_path, accum="1")
    assert crash is None and f5.verdict == OK, (crash, f5)
