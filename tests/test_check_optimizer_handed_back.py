"""Step 5, flat: the training steps run in the project's helper that is not at hand
(`train_one_epoch(head, optimizer)`), and the optimizer is handed to another of its helpers and given back
(`optimizer = dist.wrap_and_sync(optimizer, head)`): it may come back wrapped, so "cannot tell", naming it,
not "gradients are never averaged".

Written from scratch for these tests: a flat linear-probe script whose `probekit` package is absent."""
import textwrap

from hvdkit.check import UNKNOWN
from hvdkit.check.static import analyze

SCRIPT = '''
    """Linear probe on frozen features.  horovodrun -np 4 python linear_eval.py"""
    import torch
    import torch.nn as nn
    import horovod.torch as hvd

    from probekit import dist
    from probekit.probe import train_one_epoch

    hvd.init()
    head = nn.Linear(512, 100)
    optimizer = torch.optim.SGD(head.parameters(), lr=0.1 * hvd.size(), momentum=0.9)
    {wrap}
    for epoch in range(90):
        loss = train_one_epoch(head, optimizer)
        if hvd.rank() == 0:
            print(epoch, loss)
            torch.save(head.state_dict(), "probe.pt")
'''


def step5(tmp_path, wrap):
    path = tmp_path / "linear_eval.py"
    path.write_text(textwrap.dedent(SCRIPT.replace("{wrap}", wrap)).lstrip("\n"))
    return analyze(str(path))[0][5]


def test_an_optimizer_given_back_by_an_absent_helper_may_be_wrapped(tmp_path):
    f = step5(tmp_path, "optimizer = dist.wrap_and_sync(optimizer, head)")
    assert f.verdict == UNKNOWN and "wrap_and_sync" in f.evidence, f
