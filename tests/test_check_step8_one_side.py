"""Step 8: a ratio whose numerator and denominator are each rank's own totals, with only one side reduced.

A validation perplexity is exp(total NLL / total tokens). Summing the token count over the ranks but keeping
the NLL this rank's own gives exp(mean / N): a perplexity far too low. Summing both (or neither, then
averaging the per-rank means over equal shards) is right. Written from scratch for these tests: a small
language-model project whose evaluation lives in a package module the entry script imports."""
from hvdkit.check import FLAGGED, OK

from crash_scripts import check_project

ENTRY = '''
    """Char-level LM.  horovodrun -np 4 python train_lm.py --config configs/small.json"""
    import argparse
    import json
    import math

    import torch
    import horovod.torch as hvd

    from charlm.data import make_loaders
    from charlm.metrics import validation_ppl

    DEFAULTS = {"lr": 3e-4, "epochs": 2, "batch": 32, "block": 64}


    class Trainer:
        def __init__(self, cfg):
            self.cfg = cfg
            self.train_loader, self.val_loader = make_loaders(cfg["batch"], cfg["block"])
            self.model = torch.nn.Sequential(torch.nn.Embedding(96, 64), torch.nn.Linear(64, 96))
            opt = torch.optim.AdamW(self.model.parameters(), lr=cfg["lr"] * hvd.size())
            self.opt = hvd.DistributedOptimizer(opt, named_parameters=self.model.named_parameters())
            hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
            hvd.broadcast_optimizer_state(self.opt, root_rank=0)

        def epoch(self, n):
            self.train_loader.sampler.set_epoch(n)
            for x, y in self.train_loader:
                self.opt.zero_grad()
                logits = self.model(x)
                torch.nn.functional.cross_entropy(logits.view(-1, 96), y.view(-1)).backward()
                self.opt.step()
            ppl = validation_ppl(self.model, self.val_loader)
            if hvd.rank() == 0:
                print(f"epoch {n} val ppl {ppl:.2f} loss {math.log(ppl):.3f}")
                torch.save(self.model.state_dict(), f"charlm-{n}.pt")


    def main():
        ap = argparse.ArgumentParser()
        ap.add_argument("--config", default=None)
        cfg = dict(DEFAULTS)
        path = ap.parse_args().config
        if path:
            with open(path) as fh:
                cfg.update(json.load(fh))
        hvd.init()
        torch.set_num_threads(1)
        trainer = Trainer(cfg)
        for n in range(cfg["epochs"]):
            trainer.epoch(n)


    if __name__ == "__main__":
        main()
'''

DATA = '''
    import torch
    import horovod.torch as hvd
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler


    def _blocks(n, block, seed):
        g = torch.Generator().manual_seed(seed)
        text = torch.randint(0, 96, (n * block + 1,), generator=g)
        return TensorDataset(text[:-1].view(n, block), text[1:].view(n, block))


    def make_loaders(batch, block):
        loaders = []
        for n, seed, shuffle in ((4096, 0, True), (512, 1, False)):
            ds = _blocks(n, block, seed)
            sampler = DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=shuffle)
            loaders.append(DataLoader(ds, batch_size=batch, sampler=sampler))
        return loaders
'''

METRICS = '''
    import math

    import torch
    import torch.nn.functional as F
    import horovod.torch as hvd


    @torch.no_grad()
    def validation_ppl(model, loader):
        nll, tokens = 0.0, 0
        for x, y in loader:
            logits = model(x)
            nll += F.cross_entropy(logits.view(-1, 96), y.view(-1), reduction="sum").item()
            tokens += y.numel()
        {reduce}
        return math.exp(nll / tokens)
'''

ONLY_TOKENS = 'tokens = hvd.allreduce(torch.tensor(tokens, dtype=torch.float64), op=hvd.Sum).item()'
BOTH = ('tokens = hvd.allreduce(torch.tensor(tokens, dtype=torch.float64), op=hvd.Sum).item()\n'
        '        nll = hvd.allreduce(torch.tensor(nll, dtype=torch.float64), op=hvd.Sum).item()')


def step8(tmp_path, reduce):
    files = {"train_lm.py": ENTRY, "charlm/__init__.py": "", "charlm/data.py": DATA,
             "charlm/metrics.py": METRICS.replace("{reduce}", reduce)}
    return check_project(tmp_path, files, script="train_lm.py")[2][8]


def test_a_rank_own_total_over_the_summed_count_is_wrong(tmp_path):
    f = step8(tmp_path, ONLY_TOKENS)
    assert f.verdict in FLAGGED, f
    assert "sums a count over ranks" in f.evidence and "(nll)" in f.evidence, f
    assert f.file and f.file.endswith("metrics.py") and f.line == 15, f


def test_both_totals_summed_is_right(tmp_path):
    f = step8(tmp_path, BOTH)
    assert f.verdict == OK, f

