"""What rank 0 alone runs beside the data-parallel training is not that training.

- An LR range test on a throw-away copy of the model, run by rank 0 alone (`if cfg.find_lr and
  self.is_root:`), then its pick broadcast: its plain optimizer needs no wrapping (a DistributedOptimizer on
  one rank would hang), its copy no broadcast, and the broadcast of the real model after it is not "after the
  training". Run by every rank, the same plain optimizer is flagged.
- One `evaluate(model, loader)` run on each rank's shard (averaged) and, at the end, by rank 0 on the whole
  validation set: the final report is the job's. Reporting the shard's result unaveraged is flagged.

The Trainer is also run either through `horovod.run(train_fn, ...)` or directly, so each of its attributes
(`self.is_root = hvd.rank() == 0`) is assigned in two walks; each walk reads its own.

Written from scratch for these tests: a tabular project with a Trainer, an LR finder and a data module."""

from hvdkit.check import FLAGGED, OK

from crash_scripts import check_project

RUN = '''
    """Tabular MLP.  horovodrun -np 4 python run.py   or   python run.py --num-proc 4"""
    import argparse

    import horovod

    from tab.trainer import train_fn


    if __name__ == "__main__":
        ap = argparse.ArgumentParser()
        ap.add_argument("--num-proc", type=int, default=0)
        ap.add_argument("--find-lr", type=int, default=1)
        args = ap.parse_args()
        if args.num_proc > 0:
            print(horovod.run(train_fn, args=(args.find_lr,), num_proc=args.num_proc, use_gloo=True))
        else:
            train_fn(args.find_lr)
'''

FINDER = '''
    import copy

    import torch
    import torch.nn.functional as F


    def lr_range_test(model, batches, lr_min=1e-6, lr_max=1.0, steps=50):
        net = copy.deepcopy(model)
        opt = torch.optim.Adam(net.parameters(), lr=lr_min)
        gamma = (lr_max / lr_min) ** (1.0 / steps)
        best, best_lr = float("inf"), lr_min
        for x, y in batches[:steps]:
            loss = F.cross_entropy(net(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            if loss.item() < best:
                best, best_lr = loss.item(), opt.param_groups[0]["lr"]
            for g in opt.param_groups:
                g["lr"] *= gamma
        return best_lr / 10.0
'''

TRAINER = '''
    import torch
    import torch.nn.functional as F
    import horovod.torch as hvd

    from tab.lr_finder import lr_range_test


    def batches(n, seed, rank, size):
        g = torch.Generator().manual_seed(seed)
        x = torch.randn(n, 10, generator=g)
        y = (x[:, 0] > 0).long()
        return [(x[i:i + 32], y[i:i + 32]) for i in range(rank * 32, n, 32 * size)]


    class Trainer:
        def __init__(self, find_lr):
            hvd.init()
            torch.set_num_threads(1)
            self.find_lr = find_lr
            self.is_root = hvd.rank() == 0
            self.model = torch.nn.Sequential(torch.nn.Linear(10, 32), torch.nn.ReLU(), torch.nn.Linear(32, 2))
            self.train = batches(4096, 0, hvd.rank(), hvd.size())
            self.val = batches(1024, 1, hvd.rank(), hvd.size())
            self.full_val = batches(1024, 1, 0, 1)

        def pick_lr(self):
            lr = 1e-3 * hvd.size()
            if {finder_guard}:
                lr = lr_range_test(self.model, self.train)
            return hvd.broadcast_object(lr, root_rank=0, name="lr")

        @torch.no_grad()
        def evaluate(self, model, loader):
            total, n = 0.0, 0
            for x, y in loader:
                total += F.cross_entropy(model(x), y, reduction="sum").item()
                n += len(y)
            return total / n

        def fit(self, epochs=3):
            opt = torch.optim.Adam(self.model.parameters(), lr=self.pick_lr())
            opt = hvd.DistributedOptimizer(opt, named_parameters=self.model.named_parameters())
            hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
            hvd.broadcast_optimizer_state(opt, root_rank=0)
            for epoch in range(epochs):
                for x, y in self.train:
                    opt.zero_grad()
                    F.cross_entropy(self.model(x), y).backward()
                    opt.step()
                val = hvd.allreduce(torch.tensor(self.evaluate(self.model, self.val)), name="val").item()
                if self.is_root:
                    print(f"epoch {epoch}: val loss {val:.4f}")
                    torch.save(self.model.state_dict(), "tab.pt")
            if self.is_root:
                print("final loss:", self.evaluate(self.model, {final_data}))


    def train_fn(find_lr):
        Trainer(find_lr).fit()
'''


def check(tmp_path, finder_guard="self.find_lr and self.is_root", final_data="self.full_val"):
    trainer = TRAINER.replace("{finder_guard}", finder_guard).replace("{final_data}", final_data)
    files = {"run.py": RUN, "tab/__init__.py": "", "tab/lr_finder.py": FINDER, "tab/trainer.py": trainer}
    findings = check_project(tmp_path, files, script="run.py")[2]
    return findings


def test_an_lr_range_test_rank_0_runs_alone_on_a_copy_is_not_the_training(tmp_path):
    findings = check(tmp_path)
    assert {n: f.verdict for n, f in findings.items() if f.verdict in FLAGGED} == {}, findings


def test_the_same_range_test_run_by_every_rank_steps_a_plain_optimizer(tmp_path):
    findings = check(tmp_path, finder_guard="self.find_lr")
    assert findings[5].verdict in FLAGGED and "not wrapped" in findings[5].evidence, findings[5]


def test_rank_0_reporting_a_shards_evaluation_unaveraged_is_flagged(tmp_path):
    findings = check(tmp_path, final_data="self.val")
    assert findings[8].verdict in FLAGGED, findings[8]
    assert findings[5].verdict == OK and findings[6].verdict == OK, findings
