"""Step 5: optimizers stepped by a loop over a list (`for opt in optimizers: opt.step()`). The loop variable
holds each element in turn, so an optimizer handed in a later phase (`[head_opt, backbone_opt]`, the backbone's
built for fine-tuning and never wrapped) steps with this rank's own gradients: wrong. Both wrapped: ok.

Written from scratch for these tests: a two-phase fine-tuning project whose epoch loop lives in a module."""

from hvdkit.check import FLAGGED, OK

from crash_scripts import check_project

ENTRY = '''
    """Linear probe, then full fine-tuning.  horovodrun -np 4 python finetune.py"""
    import argparse

    import torch
    import horovod.torch as hvd

    from probe.loop import run_epoch
    from probe.data import shard_loader


    def main():
        ap = argparse.ArgumentParser()
        ap.add_argument("--probe-epochs", type=int, default=2)
        ap.add_argument("--tune-epochs", type=int, default=4)
        ap.add_argument("--lr", type=float, default=0.01)
        args = ap.parse_args()
        hvd.init()
        torch.set_num_threads(1)
        loader = shard_loader(64)
        model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        head = model[2]
        head_opt = torch.optim.SGD(head.parameters(), lr=args.lr * hvd.size())
        head_opt = hvd.DistributedOptimizer(head_opt, named_parameters=head.named_parameters(prefix="2"))
        for _ in range(args.probe_epochs):
            run_epoch(model, loader, [head_opt])
        body = model[0]
        body_opt = torch.optim.SGD(body.parameters(), lr=0.1 * args.lr * hvd.size())
        {wrap}
        for _ in range(args.tune_epochs):
            loss = hvd.allreduce(torch.tensor(run_epoch(model, loader, [head_opt, body_opt]))).item()
            if hvd.rank() == 0:
                print("loss", loss)
                torch.save(model.state_dict(), "tuned.pt")


    if __name__ == "__main__":
        main()
'''

LOOP = '''
    import torch


    def run_epoch(model, loader, optimizers):
        total = 0.0
        for x, y in loader:
            for opt in optimizers:
                opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            for opt in optimizers:
                opt.step()
            total += loss.item()
        return total / max(len(loader), 1)
'''

DATA = '''
    import torch
    import horovod.torch as hvd
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler


    def shard_loader(batch):
        x = torch.randn(2048, 16, generator=torch.Generator().manual_seed(0))
        ds = TensorDataset(x, x[:, :4].argmax(1))
        return DataLoader(ds, batch_size=batch, sampler=DistributedSampler(ds, hvd.size(), hvd.rank()))
'''


def step5(tmp_path, wrap):
    files = {"finetune.py": ENTRY.replace("{wrap}", wrap), "probe/__init__.py": "", "probe/loop.py": LOOP,
             "probe/data.py": DATA}
    findings = check_project(tmp_path, files, script="finetune.py")[2]
    return findings[5]


def test_an_unwrapped_optimizer_stepped_through_a_loop_over_the_list_is_wrong(tmp_path):
    f = step5(tmp_path, "pass")
    assert f.verdict in FLAGGED, f
    assert "not wrapped" in f.evidence, f


def test_every_optimizer_of_the_list_wrapped_is_ok(tmp_path):
    f = step5(tmp_path, 'body_opt = hvd.DistributedOptimizer(body_opt, named_parameters=body.named_parameters('
                        'prefix="0"))')
    assert f.verdict == OK, f
