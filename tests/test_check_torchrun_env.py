"""`hvdkit check`, step 2, on a GPU index read from the launcher's environment. `LOCAL_RANK` is torchrun's:
Horovod's launchers (horovodrun, over Gloo or MPI, and mpirun) never set it (Horovod 0.28.1's runner sets
HOROVOD_LOCAL_RANK; Open MPI sets OMPI_COMM_WORLD_LOCAL_RANK), so under Horovod every rank reads its
default and takes GPU 0. Read as a fallback after a variable the launcher does set, it is right.

Written from scratch for these tests: a stereo-depth trainer's device set-up, ported from torchrun."""
import textwrap

import pytest

from hvdkit.check.findings import OK, WRONG
from hvdkit.check.static import analyze

SCRIPT = textwrap.dedent("""
    import os

    import horovod.torch as hvd
    import torch


    def setup_device():
        local_rank = int(READ)
        if torch.cuda.is_available():
            torch.cuda.set_device(local_rank)
            return torch.device("cuda", local_rank)
        return torch.device("cpu")


    def main():
        hvd.init()
        device = setup_device()
        model = torch.nn.Conv2d(6, 1, 3, padding=1).to(device)
        opt = hvd.DistributedOptimizer(torch.optim.Adam(model.parameters(), lr=1e-4 * hvd.size()),
                                       named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        for step in range(100):
            opt.zero_grad()
            model(torch.randn(4, 6, 64, 64, device=device)).abs().mean().backward()
            opt.step()


    if __name__ == "__main__":
        main()
""").lstrip()


@pytest.mark.parametrize("read, verdict", [
    ('os.environ.get("LOCAL_RANK", 0)', WRONG),  # torchrun's variable: 0 on every rank under horovodrun
    ('os.environ.get("OMPI_COMM_WORLD_LOCAL_RANK", 0)', OK),
    ('os.environ.get("HOROVOD_LOCAL_RANK", os.environ.get("LOCAL_RANK", 0))', OK),
    ("hvd.local_rank()", OK),
])
def test_a_gpu_index_from_the_launchers_environment(tmp_path, read, verdict):
    (tmp_path / "train.py").write_text(SCRIPT.replace("READ", read))
    f = analyze(str(tmp_path / "train.py"))[0][2]
    assert f.verdict == verdict
    if verdict == WRONG:
        assert "torchrun" in f.evidence
