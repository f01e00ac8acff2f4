"""Step 1: hvd.shutdown() inside a k-fold loop (a fold runner's `finally:` cleanup ported from
destroy_process_group()): the next fold's Horovod calls find Horovod uninitialised. Shutting down once,
after the loop, is right.

Written from scratch for these tests: a k-fold project with its distributed helpers in a module."""

from hvdkit.check import FLAGGED, OK

from crash_scripts import check_project

ENTRY = '''
    """5-fold CV.  horovodrun -np 4 python cv.py"""
    import torch
    import horovod.torch as hvd

    from kf import dist


    def run_fold(fold, x, y):
        try:
            model = torch.nn.Linear(8, 1)
            opt = hvd.DistributedOptimizer(torch.optim.SGD(model.parameters(), lr=0.01 * hvd.size()),
                                           named_parameters=model.named_parameters())
            hvd.broadcast_parameters(model.state_dict(), root_rank=0)
            mine = slice(hvd.rank(), None, hvd.size())
            for i in range(0, len(x[mine]), 32):
                opt.zero_grad()
                torch.nn.functional.mse_loss(model(x[mine][i:i + 32]), y[mine][i:i + 32]).backward()
                opt.step()
            if dist.is_main():
                torch.save(model.state_dict(), f"fold{fold}.pt")
        finally:
            {cleanup}


    def main():
        dist.init()
        g = torch.Generator().manual_seed(0)
        x, y = torch.randn(2000, 8, generator=g), torch.randn(2000, 1, generator=g)
        for fold in range(5):
            run_fold(fold, x, y)
        {after}


    if __name__ == "__main__":
        main()
'''

DIST = '''
    import torch
    import horovod.torch as hvd


    def init():
        hvd.init()
        torch.set_num_threads(1)


    def is_main():
        return hvd.rank() == 0


    def cleanup():
        hvd.shutdown()
'''


def step1(tmp_path, cleanup, after):
    files = {"cv.py": ENTRY.replace("{cleanup}", cleanup).replace("{after}", after), "kf/__init__.py": "",
             "kf/dist.py": DIST}
    findings = check_project(tmp_path, files, script="cv.py")[2]
    return findings[1]


def test_a_shutdown_at_the_end_of_every_fold_is_wrong(tmp_path):
    f = step1(tmp_path, "dist.cleanup()", "pass")
    assert f.verdict in FLAGGED and "shutdown()" in f.evidence, f


def test_one_shutdown_after_the_loop_is_ok(tmp_path):
    f = step1(tmp_path, "pass", "dist.cleanup()")
    assert f.verdict == OK, f
