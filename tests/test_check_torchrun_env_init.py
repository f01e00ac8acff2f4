"""An hvd.init() that runs only when torchrun's WORLD_SIZE says there are several workers: horovodrun and
mpirun never set WORLD_SIZE, so on a Horovod run the init is skipped and the first hvd.rank() raises
(ValueError: Horovod has not been initialized), a crash the project's module shows. The same helper keyed on
Horovod's own variable (HOROVOD_SIZE, which its launcher sets) is no certain crash.

Written from scratch for these tests: a PyTorch segmentation project whose distributed helper lives in its
package."""
import textwrap

from hvdkit.check import FLAGGED
from hvdkit.check.static import analyze

DIST = '''
    import os

    import torch
    import horovod.torch as hvd


    def init_distributed():
        """Start Horovod when launched with several workers; a plain `python main.py` debug run skips it."""
        world = int(os.environ.get("{var}", "1"))
        if world > 1:
            hvd.init()
            if torch.cuda.is_available():
                torch.cuda.set_device(hvd.local_rank())
        return world > 1
'''

MAIN = '''
    """Sea-ice segmentation.  horovodrun -np 4 python main.py"""
    import torch
    import horovod.torch as hvd

    from iceseg.dist import init_distributed


    def main():
        init_distributed()
        {ranks}
        torch.manual_seed(rank)
        model = torch.nn.Conv2d(3, 2, 3, padding=1)
        opt = torch.optim.SGD(model.parameters(), lr=0.01 * world)
        opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        for _ in range(10):
            opt.zero_grad()
            model(torch.randn(2, 3, 32, 32)).mean().backward()
            opt.step()
        if rank == 0:
            torch.save(model.state_dict(), "ice.pt")


    if __name__ == "__main__":
        main()
'''


def check(tmp_path, var, ranks="rank, world = hvd.rank(), hvd.size()"):
    (tmp_path / "iceseg").mkdir()
    (tmp_path / "iceseg" / "__init__.py").write_text("")
    (tmp_path / "iceseg" / "dist.py").write_text(textwrap.dedent(DIST.replace("{var}", var)))
    (tmp_path / "main.py").write_text(textwrap.dedent(MAIN.replace("{ranks}", ranks)).lstrip("\n"))
    findings, _, info = analyze(str(tmp_path / "main.py"), root=str(tmp_path))
    return findings, info.get("crash")


def crash(tmp_path, var):
    return check(tmp_path, var)[1]


def test_init_keyed_on_torchruns_world_size_never_runs_under_horovod(tmp_path):
    c = crash(tmp_path, "WORLD_SIZE")
    assert c is not None and "not been initialized" in c["error"] and c["line"] == 10, c


def test_init_keyed_on_horovods_own_variable_is_no_certain_crash(tmp_path):
    assert crash(tmp_path, "HOROVOD_SIZE") is None


def test_torchs_optimizer_wrapper_raises_first_when_nothing_queries_the_rank(tmp_path):
    # Horovod 0.28.1's torch DistributedOptimizer asks hvd.size() when made: the first call that raises.
    findings, c = check(tmp_path, "WORLD_SIZE", ranks="rank, world = 0, 1")
    assert c is not None and "not been initialized" in c["error"] and c["line"] == 14, c
    # the fault is step 1's: the wrapper and the broadcast that raise after it keep their own verdicts
    assert findings[1].verdict in FLAGGED, findings[1]
    assert "raises" not in findings[5].evidence and "raises" not in findings[6].evidence, findings
