"""`hvdkit check`'s crash finding for Horovod calls whose arguments bind but that Horovod 0.28.1 rejects
when they run (issue 39, item 5), each read from Horovod's own code:

- the allreduce family given both `op=` and the older `average=`: handle_average_backwards_compatibility
  (horovod/common/util.py) raises ValueError ("The op parameter supersedes average");
- horovod.torch.broadcast_parameters given `model.parameters()` / `model.named_parameters()`: a generator,
  where it takes a state_dict, a dict or a list (torch/functions.py raises ValueError "invalid params of
  type");
- horovod.torch.broadcast_optimizer_state given `opt.state_dict()`: it calls state_dict() on what it is
  given, and a dict has none (AttributeError).

Each broken script beside its correct twins (one of the two keywords, `average=None`, a list of the
parameters, the state_dict). Scripts written from scratch for these tests."""
import textwrap

import pytest

from hvdkit.check.static import analyze

TORCH = textwrap.dedent("""
    import torch
    import horovod.torch as hvd
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler


    def main():
        hvd.init()
        torch.set_num_threads(1)
        data = TensorDataset(torch.randn(512, 16), torch.randint(0, 4, (512,)))
        sampler = DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())
        loader = DataLoader(data, batch_size=32, sampler=sampler)
        model = torch.nn.Linear(16, 4)
        opt = torch.optim.SGD(model.parameters(), lr=0.01 * hvd.size())
        opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(BROADCAST, root_rank=0)
        hvd.broadcast_optimizer_state(OPTIMIZER, root_rank=0)
        for epoch in range(3):
            total = torch.zeros(())
            for x, y in loader:
                opt.zero_grad()
                loss = torch.nn.functional.cross_entropy(model(x), y)
                loss.backward()
                opt.step()
                total += loss.detach()
            mean = hvd.allreduce(total / len(loader), REDUCE)
            if hvd.rank() == 0:
                print(epoch, mean.item())
                torch.save(model.state_dict(), "model.pt")


    if __name__ == "__main__":
        main()
""").lstrip()


def _crash(tmp_path, broadcast="model.state_dict()", reduce='name="loss"', optimizer="opt"):
    path = tmp_path / "train.py"
    path.write_text(TORCH.replace("BROADCAST", broadcast).replace("REDUCE", reduce).replace("OPTIMIZER", optimizer))
    (tmp_path / "pyproject.toml").write_text("[project]\nname = \"t\"\n")
    findings, _, info = analyze(str(path))
    return info["crash"], findings


def test_op_and_average_together_are_a_crash(tmp_path):
    crash, findings = _crash(tmp_path, reduce="op=hvd.Average, average=True")
    assert crash is not None and crash["error"].startswith("ValueError: The op parameter supersedes average")
    assert crash["line"] == TORCH.splitlines().index(
        next(line for line in TORCH.splitlines() if "REDUCE" in line)) + 1


def test_average_given_by_position_with_op_is_a_crash(tmp_path):
    crash, _ = _crash(tmp_path, reduce="True, op=hvd.Sum")
    assert crash is not None and "supersedes average" in crash["error"]


@pytest.mark.parametrize("reduce", ['name="loss"', "op=hvd.Average", "average=True", "average=None, op=hvd.Sum"])
def test_one_of_op_and_average_is_no_crash(tmp_path, reduce):
    crash, _ = _crash(tmp_path, reduce=reduce)
    assert crash is None


@pytest.mark.parametrize("arg", ["model.parameters()", "model.named_parameters()"])
def test_broadcasting_a_generator_of_parameters_is_a_crash_and_the_broadcast_is_wrong(tmp_path, arg):
    crash, findings = _crash(tmp_path, broadcast=arg)
    assert crash is not None and crash["error"] == "ValueError: invalid params of type: <class 'generator'>"
    assert findings[6].verdict == "wrong"


@pytest.mark.parametrize("arg", ["model.state_dict()", "list(model.named_parameters())",
                                 "dict(model.named_parameters())"])
def test_a_state_dict_a_list_or_a_dict_is_no_crash(tmp_path, arg):
    crash, findings = _crash(tmp_path, broadcast=arg)
    assert crash is None
    assert findings[6].verdict == "ok"


def test_broadcasting_the_optimizers_state_dict_is_a_crash_and_the_broadcast_is_wrong(tmp_path):
    crash, findings = _crash(tmp_path, optimizer="opt.state_dict()")
    assert crash is not None and crash["error"] == "AttributeError: 'dict' object has no attribute 'state_dict'"
    assert crash["line"] == next(i for i, line in enumerate(TORCH.splitlines(), 1) if "OPTIMIZER" in line)
    assert findings[6].verdict == "wrong"


@pytest.mark.parametrize("optimizer", ["opt", "optimizer=opt"])
def test_broadcasting_the_optimizer_itself_is_no_crash(tmp_path, optimizer):
    crash, findings = _crash(tmp_path, optimizer=optimizer)
    assert crash is None
    assert findings[6].verdict == "ok"
