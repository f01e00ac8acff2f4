"""`hvdkit check`'s crash finding: a worker that `horovod.run` starts is a new process, where Horovod starts
uninitialised. A worker function that queries Horovod (`hvd.size()`) without calling `hvd.init()` itself
raises ValueError ('Horovod has not been initialized'), even when the launching process called hvd.init().
The worker calling hvd.init() first is no crash.

Written from scratch for these tests: a launcher script and a worker module in a package."""
from crash_scripts import Source, check_project

LAUNCH = Source('''
    """Train on 4 local processes without horovodrun.  python launch.py"""
    import horovod

    from lm.worker import train_worker


    def main():
        results = horovod.run(train_worker, args=(3,), np=4, use_gloo=True)
        print("losses per worker:", results)


    if __name__ == "__main__":
        main()
''')

WORKER = Source('''
    import torch
    import horovod.torch as hvd


    def train_worker(epochs):
        torch.set_num_threads(1)
        x = torch.randn(4096, 16, generator=torch.Generator().manual_seed(0))[hvd.rank()::hvd.size()]
        model = torch.nn.Linear(16, 1)
        opt = hvd.DistributedOptimizer(torch.optim.SGD(model.parameters(), lr=0.01 * hvd.size()),
                                       named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        for _ in range(epochs):
            for i in range(0, len(x), 64):
                opt.zero_grad()
                loss = model(x[i:i + 64]).pow(2).mean()
                loss.backward()
                opt.step()
        if hvd.rank() == 0:
            torch.save(model.state_dict(), "lm.pt")
        return loss.item()
''')

ERROR = "ValueError: Horovod has not been initialized; use hvd.init()."


def run(tmp_path, launch=LAUNCH, worker=WORKER):
    return check_project(tmp_path / "proj", {"launch.py": launch, "lm/__init__.py": "", "lm/worker.py": worker},
                         script="launch.py")


def test_a_worker_that_never_inits_horovod_crashes(tmp_path):
    crash, _, _ = run(tmp_path)
    assert crash is not None and crash["error"] == ERROR and crash["file"] == "lm/worker.py", crash
    assert "in the worker" in crash["why"], crash


def test_an_init_in_the_launching_process_does_not_init_the_worker(tmp_path):
    launch = LAUNCH.replace("    import horovod\n", "    import horovod\n    import horovod.torch as hvd\n").replace(
        "    def main():\n", "    def main():\n        hvd.init()\n")
    crash, flagged, findings = run(tmp_path, launch=launch)
    assert crash is not None and crash["error"] == ERROR, crash
    # step 1 is wrong too: the init runs, but not where the training does
    assert flagged[1] == "wrong" and "new processes" in findings[1].evidence, findings[1]


def test_a_worker_that_inits_first_is_no_crash(tmp_path):
    worker = WORKER.replace("        torch.set_num_threads(1)\n",
                            "        hvd.init()\n        torch.set_num_threads(1)\n")
    crash, flagged, _ = run(tmp_path, worker=worker)
    assert crash is None and 1 not in flagged, (crash, flagged)
    launch = LAUNCH.replace("    import horovod\n", "    import horovod\n    import horovod.torch as hvd\n").replace(
        "    def main():\n", "    def main():\n        hvd.init()\n")
    crash, flagged, _ = run(tmp_path, launch=launch, worker=worker)
    assert crash is None and 1 not in flagged, (crash, flagged)  # both processes init their own Horovod
