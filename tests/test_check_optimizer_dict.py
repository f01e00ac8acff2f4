"""Step 5 with optimizers kept in a dict and stepped in a loop (`for opt in optimizers.values(): opt.step()`):
the loop steps every optimizer the dict holds. A backbone optimizer left unwrapped beside a wrapped decoder
one steps with this rank's own gradients (flagged); both wrapped is ok.

Written from scratch for these tests: a segmentation project whose builder returns one optimizer per part
of the network."""
import textwrap

from hvdkit.check import FLAGGED, OK
from hvdkit.check.static import analyze

OPTIM = '''
    import horovod.torch as hvd
    import torch


    def build_optimizers(model, lr, world_size=1):
        lr = lr * world_size
        backbone_opt = torch.optim.SGD(model[0].parameters(), lr=lr * 0.1, momentum=0.9)
        decoder_opt = torch.optim.SGD(model[1].parameters(), lr=lr, momentum=0.9)
        decoder_opt = hvd.DistributedOptimizer(decoder_opt, named_parameters=model[1].named_parameters(prefix="1"))
        {backbone_wrap}
        return {"backbone": backbone_opt, "decoder": decoder_opt}
'''

MAIN = '''
    """Lesion segmentation.  horovodrun -np 4 python main.py"""
    import torch
    import torch.nn.functional as F
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler
    import horovod.torch as hvd

    from segkit.optim import build_optimizers

    hvd.init()
    torch.set_num_threads(1)
    data = TensorDataset(torch.randn(1024, 8), torch.randint(0, 2, (1024,)))
    sampler = DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())
    loader = DataLoader(data, batch_size=16, sampler=sampler)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.Linear(16, 2))
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    optimizers = build_optimizers(model, 0.01, world_size=hvd.size())
    for epoch in range(5):
        sampler.set_epoch(epoch)
        for x, y in loader:
            for opt in optimizers.values():
                opt.zero_grad()
            F.cross_entropy(model(x), y).backward()
            for opt in optimizers.values():
                opt.step()
        if hvd.rank() == 0:
            torch.save(model.state_dict(), "seg.pt")
'''


def step5(tmp_path, backbone_wrap):
    (tmp_path / "segkit").mkdir()
    (tmp_path / "segkit" / "__init__.py").write_text("")
    (tmp_path / "segkit" / "optim.py").write_text(textwrap.dedent(OPTIM.replace("{backbone_wrap}", backbone_wrap)))
    (tmp_path / "main.py").write_text(textwrap.dedent(MAIN).lstrip("\n"))
    findings, _, _ = analyze(str(tmp_path / "main.py"), root=str(tmp_path))
    return findings[5]


def test_an_unwrapped_optimizer_in_the_dict_is_flagged(tmp_path):
    f = step5(tmp_path, "pass")
    assert f.verdict in FLAGGED and "not wrapped" in f.evidence, f


def test_every_optimizer_of_the_dict_wrapped_is_ok(tmp_path):
    wrap = ("backbone_opt = hvd.DistributedOptimizer(backbone_opt, "
            "named_parameters=model[0].named_parameters(prefix='0'))")
    f = step5(tmp_path, wrap)
    assert f.verdict == OK, f
