"""A training function launched by `horovod.run(train, args=(cfg,), ...)` is called with the arguments the
launcher passes on: its parameters are bound to them. With `cfg = vars(args)`, `cfg["resume"]` reads the
option --resume, off by default; a broadcast only under `if cfg["resume"]:` does not run on a fresh run
(step 6 wrong, the option named). Under `if not cfg["no_sync"]:` (also off by default) it runs by
default: not wrong (an option that could turn it off leaves it "cannot tell", as for any guard). The same
training launched by `multiprocessing.Process(target=..., kwargs=...)` binds by keyword.

Written from scratch for these tests: a flat launcher script."""
import textwrap

from hvdkit.check import OK, UNKNOWN, WRONG
from hvdkit.check.static import analyze

SCRIPT = '''
    """Calorimeter surrogate.  python train.py --np 4 (starts its own gloo workers)"""
    import argparse

    import torch
    import horovod
    import horovod.torch as hvd


    def train(cfg):
        hvd.init()
        torch.set_num_threads(1)
        torch.manual_seed(cfg["seed"] + hvd.rank())
        x = torch.randn(4096, 12)[hvd.rank()::hvd.size()]
        model = torch.nn.Sequential(torch.nn.Linear(12, 64), torch.nn.ReLU(), torch.nn.Linear(64, 12))
        opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"] * hvd.size())
        opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
        if {test}:
            hvd.broadcast_parameters(model.state_dict(), root_rank=0)
            hvd.broadcast_optimizer_state(opt, root_rank=0)
        for epoch in range(cfg["epochs"]):
            for s in range(0, len(x), 64):
                opt.zero_grad()
                loss = (model(x[s:s + 64]) - x[s:s + 64]).pow(2).mean()
                loss.backward()
                opt.step()
            loss = hvd.allreduce(loss.detach(), name="loss")
            if hvd.rank() == 0:
                print(epoch, float(loss))
                torch.save(model.state_dict(), "calo.pt")


    def main():
        p = argparse.ArgumentParser()
        p.add_argument("--np", type=int, default=4)
        p.add_argument("--lr", type=float, default=1e-3)
        p.add_argument("--epochs", type=int, default=10)
        p.add_argument("--seed", type=int, default=0)
        p.add_argument("--resume", action="store_true")
        p.add_argument("--no-sync", action="store_true")
        args = p.parse_args()
        cfg = vars(args)
        {launch}


    if __name__ == "__main__":
        main()
'''

HOROVOD_RUN = "horovod.run(train, args=(cfg,), np=args.np, use_gloo=True)"


def step6(tmp_path, test, launch=HOROVOD_RUN):
    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent(SCRIPT.replace("{test}", test).replace("{launch}", launch)).lstrip("\n"))
    findings, _, _ = analyze(str(path))
    return findings[6]


def test_a_broadcast_behind_an_option_off_by_default_does_not_run(tmp_path):
    f = step6(tmp_path, 'cfg["resume"]')
    assert f.verdict == WRONG and "resume" in f.evidence, f


def test_a_broadcast_unless_an_option_off_by_default_runs(tmp_path):
    assert step6(tmp_path, 'not cfg["no_sync"]').verdict in (OK, UNKNOWN)


def test_a_process_target_is_bound_by_its_kwargs(tmp_path):
    launch = "import multiprocessing; multiprocessing.Process(target=train, kwargs={'cfg': cfg}).start()"
    f = step6(tmp_path, 'cfg["resume"]', launch)
    assert f.verdict == WRONG and "resume" in f.evidence, f
