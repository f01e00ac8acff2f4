"""Correct predictions summed over the ranks and divided by `len(data)`, the data set the DistributedSampler
partitions, is the job's accuracy: the whole set's size is no rank's own count (it was reported as "divided
by this rank's own count").

Written from scratch for these tests (found while checking the blind set zf): a flat PyTorch script."""
import textwrap

from hvdkit.check import OK
from hvdkit.check.static import analyze

SCRIPT = '''
    """Linear probe.  horovodrun -np 4 python train.py"""
    import torch
    import horovod.torch as hvd
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler

    hvd.init()
    torch.set_num_threads(1)
    data = TensorDataset(torch.randn(4096, 32), torch.randint(0, 10, (4096,)))
    sampler = DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())
    loader = DataLoader(data, batch_size=64, sampler=sampler)
    model = torch.nn.Linear(32, 10)
    opt = torch.optim.SGD(model.parameters(), lr=0.05 * hvd.size(), momentum=0.9)
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)
    for epoch in range(10):
        sampler.set_epoch(epoch)
        correct = torch.zeros(())
        for x, y in loader:
            opt.zero_grad()
            out = model(x)
            torch.nn.functional.cross_entropy(out, y).backward()
            opt.step()
            correct += (out.argmax(1) == y).sum()
        acc = hvd.allreduce(correct, op=hvd.Sum) / COUNT
        if hvd.rank() == 0:
            print(epoch, acc.item())
            torch.save(model.state_dict(), "probe.pt")
'''


def check(tmp_path, count):
    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent(SCRIPT.replace("COUNT", count)).lstrip())
    return analyze(str(path))[0][8]


def test_a_sum_over_the_whole_data_sets_size_is_the_accuracy(tmp_path):
    assert check(tmp_path, "len(data)").verdict == OK
