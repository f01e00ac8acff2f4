"""Step 4: options read off the parsed namespace take their declared defaults, and a parser is no LR schedule.

`per_rank = args.global_batch // hvd.size()` fixes the global batch only when `--global-batch` is a number;
declared as `default=32 * hvd.size()` it grows with the ranks, and an unscaled LR is then too small. A parser
function that reads hvd.size() for some option (a default that depends on the ranks) does not make the LR
read off its namespace grow: only what a schedule returns can. Written from scratch for these tests: a
language-model project whose options live in their own module."""
from hvdkit.check import FLAGGED, OK

from crash_scripts import check_project

ENTRY = '''
    """Tiny LM.  horovodrun -np 4 python train.py"""
    import torch
    import horovod.torch as hvd
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler

    from lmkit.options import parse_args


    def main():
        args = parse_args()
        torch.set_num_threads(1)
        data = TensorDataset(torch.randint(0, 100, (4096, 32)))
        sampler = DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())
        per_rank = args.global_batch // hvd.size()
        loader = DataLoader(data, batch_size=per_rank, sampler=sampler, drop_last=True)
        model = torch.nn.Sequential(torch.nn.Embedding(100, 64), torch.nn.Linear(64, 100))
        opt = torch.optim.AdamW(model.parameters(), lr=args.lr)
        opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(opt, root_rank=0)
        for epoch in range(args.epochs):
            sampler.set_epoch(epoch)
            for (x,) in loader:
                opt.zero_grad()
                logits = model(x[:, :-1])
                torch.nn.functional.cross_entropy(logits.reshape(-1, 100), x[:, 1:].reshape(-1)).backward()
                opt.step()
            if hvd.rank() == 0:
                torch.save(model.state_dict(), "lm.pt")


    if __name__ == "__main__":
        main()
'''

OPTIONS = '''
    import argparse

    import horovod.torch as hvd


    def parse_args():
        hvd.init()
        p = argparse.ArgumentParser("tiny lm")
        p.add_argument("--global-batch", type=int, default={batch})
        p.add_argument("--loader-workers", type=int, default=max(1, 8 // hvd.local_size()))
        p.add_argument("--shards", type=int, default=hvd.size())
        p.add_argument("--lr", type=float, default=3e-4)
        p.add_argument("--epochs", type=int, default=2)
        return p.parse_args()
'''


def step4(tmp_path, batch):
    files = {"train.py": ENTRY, "lmkit/__init__.py": "", "lmkit/options.py": OPTIONS.replace("{batch}", batch)}
    return check_project(tmp_path, files)[2][4]


def test_a_global_batch_defaulting_to_a_multiple_of_the_ranks_needs_the_lr_scaled(tmp_path):
    f = step4(tmp_path, "32 * hvd.size()")
    assert f.verdict in FLAGGED and "not scaled" in f.evidence, f


def test_a_fixed_global_batch_keeps_the_lr_though_the_parser_reads_the_size(tmp_path):
    f = step4(tmp_path, "256")
    assert f.verdict == OK and "global batch is fixed" in f.evidence, f
