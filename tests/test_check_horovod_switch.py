"""A script that trains with or without Horovod (`--horovod`, off by default, around `hvd.init()` and every
other Horovod call) is judged as the Horovod run it is checked for: there the switch is on, so a broadcast
or a rank count assigned under the same switch is not "off by default" (issue 39, item 4: judge by what the
code computes). A condition around init that leaves other Horovod calls outside it is no switch: init
behind it is step 1's fault (the calls outside raise "Horovod has not been initialized").

Written from scratch for these tests: a regression project, `train.py` and `regkit/loop.py`."""
from crash_scripts import Source, check_project
from hvdkit.check import OK, WRONG

TRAIN = Source('''
    """Tabular regression.  python train.py  |  horovodrun -np 4 python train.py --horovod"""
    import argparse

    import torch
    import horovod.torch as hvd

    from regkit.loop import fit


    def main():
        p = argparse.ArgumentParser()
        p.add_argument("--horovod", action="store_true")
        p.add_argument("--lr", type=float, default=0.05)
        args = p.parse_args()
        world, rank = 1, 0
        INIT
        data = torch.utils.data.TensorDataset(torch.randn(4096, 8), torch.randn(4096, 1))
        sampler = torch.utils.data.distributed.DistributedSampler(data, num_replicas=world, rank=rank)
        loader = torch.utils.data.DataLoader(data, batch_size=64, sampler=sampler)
        model = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1))
        opt = torch.optim.SGD(model.parameters(), lr=args.lr * world, momentum=0.9)
        if WRAP:
            opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
            hvd.broadcast_parameters(model.state_dict(), root_rank=0)
            hvd.broadcast_optimizer_state(opt, root_rank=0)
        fit(model, opt, loader, sampler, rank, AVERAGE)


    if __name__ == "__main__":
        main()
''')

LOOP = '''
    import torch
    import horovod.torch as hvd


    def fit(model, opt, loader, sampler, rank, average, epochs=5):
        for epoch in range(epochs):
            sampler.set_epoch(epoch)
            total, count = torch.zeros(()), torch.zeros(())
            for x, y in loader:
                opt.zero_grad()
                loss = torch.nn.functional.mse_loss(model(x), y)
                loss.backward()
                opt.step()
                total += loss.detach() * len(x)
                count += len(x)
            if average:
                total, count = hvd.allreduce(total, op=hvd.Sum), hvd.allreduce(count, op=hvd.Sum)
            if rank == 0:
                print(epoch, float(total / count))
                torch.save(model.state_dict(), "reg.pt")
'''

SWITCHED = """if args.horovod:
            hvd.init()
            world, rank = hvd.size(), hvd.rank()
            torch.set_num_threads(1)"""


def check(tmp_path, init, wrap="args.horovod", average="args.horovod"):
    files = {"train.py": TRAIN.replace("INIT", init).replace("WRAP", wrap).replace("AVERAGE", average),
             "regkit/__init__.py": "",
             "regkit/loop.py": LOOP}
    return check_project(tmp_path, files)[2]


def test_a_horovod_switch_around_every_call_is_judged_switched_on(tmp_path):
    found = check(tmp_path, SWITCHED)
    assert found[4].verdict == OK and found[6].verdict == OK, (found[4], found[6])
    assert found[1].verdict == OK and found[8].verdict == OK, (found[1], found[8])


def test_a_condition_around_init_alone_is_no_switch(tmp_path):
    found = check(tmp_path, SWITCHED.replace("world, rank = hvd.size(), hvd.rank()", "pass") +
                  "\n        world, rank = hvd.size(), hvd.rank()", wrap="True", average="True")
    assert found[1].verdict == WRONG and "--horovod" in found[1].evidence or "args.horovod" in found[1].evidence, \
        found[1]
