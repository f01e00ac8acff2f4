"""`named = model.named_parameters()` is a generator: iterated once to build weight-decay groups, it is empty
when handed to `hvd.DistributedOptimizer(..., named_parameters=named)`. Horovod then finds every parameter
unnamed and raises ValueError ("named_parameters was specified, but one or more model parameters were not
named"; reproduced in the blind set zb): a crash, and step 5 wrong. A fresh call, or a list made once, is
fine.

Written from scratch for these tests: a detection project, `train.py` and `detkit/optim.py`."""
from crash_scripts import Source, check_project
from hvdkit.check import OK, WRONG

TRAIN = '''
    """Nuclei detector.  horovodrun -np 4 python train.py"""
    import argparse

    import torch
    import horovod.torch as hvd

    from detkit.optim import build_optimizer


    def main():
        ap = argparse.ArgumentParser()
        ap.add_argument("--lr", type=float, default=0.01)
        ap.add_argument("--wd", type=float, default=1e-4)
        args = ap.parse_args()
        hvd.init()
        torch.set_num_threads(1)
        data = torch.utils.data.TensorDataset(torch.randn(1024, 3, 32, 32), torch.randint(0, 2, (1024,)))
        sampler = torch.utils.data.distributed.DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())
        loader = torch.utils.data.DataLoader(data, batch_size=16, sampler=sampler)
        model = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3), torch.nn.BatchNorm2d(8), torch.nn.Flatten(),
                                    torch.nn.Linear(8 * 30 * 30, 2))
        optimizer = build_optimizer(model, args)
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(optimizer, root_rank=0)
        for epoch in range(10):
            sampler.set_epoch(epoch)
            hits = torch.zeros(())
            for x, y in loader:
                optimizer.zero_grad()
                out = model(x)
                torch.nn.functional.cross_entropy(out, y).backward()
                optimizer.step()
                hits += (out.argmax(1) == y).sum()
            acc = hvd.allreduce(hits, op=hvd.Sum) / len(data)
            if hvd.rank() == 0:
                print(epoch, acc.item())
                torch.save(model.state_dict(), "det.pt")


    if __name__ == "__main__":
        main()
'''

OPTIM = Source('''
    import torch
    import horovod.torch as hvd


    def build_optimizer(model, args):
        """SGD without weight decay on norms and biases, wrapped for Horovod."""
        named = model.named_parameters()
        decay = [p for n, p in named if p.ndim > 1]
        plain = [p for n, p in model.named_parameters() if p.ndim <= 1]
        groups = [{"params": decay, "weight_decay": args.wd}, {"params": plain, "weight_decay": 0.0}]
        optimizer = torch.optim.SGD(groups, lr=args.lr * hvd.size(), momentum=0.9)
        return hvd.DistributedOptimizer(optimizer, named_parameters=named)
''')


def check(tmp_path, optim=OPTIM):
    files = {"train.py": TRAIN, "detkit/__init__.py": "", "detkit/optim.py": optim}
    crash, _, found = check_project(tmp_path, files)
    return crash, found[5]


def test_a_used_up_generator_of_names_crashes(tmp_path):
    crash, f5 = check(tmp_path)
    assert crash and crash["file"] == "detkit/optim.py" and crash["error"].startswith("ValueError"), crash
    assert f5.verdict == WRONG and "uses up" in f5.evidence, f5


def test_a_fresh_generator_is_fine(tmp_path):
    crash, f5 = check(tmp_path, OPTIM.replace("named_parameters=named)", "named_parameters=model.named_parameters())"))
    assert crash is None and f5.verdict == OK, (crash, f5)


def test_a_list_made_once_is_fine(tmp_path):
    crash, f5 = check(tmp_path, OPTIM.replace("named = model.named_parameters()",
                                              "named = list(model.named_parameters())"))
    assert crash is None and f5.verdict == OK, (crash, f5)
