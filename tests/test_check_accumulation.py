"""Step 5: gradient accumulation under a torch DistributedOptimizer. A loop that runs backward() on every
pass and steps the optimizer only under `if (it + 1) % accum == 0:` needs backward_passes_per_step=accum:
left at 1, Horovod's gradient hook raises AssertionError at the second backward(). Correct twins: the option
given; an accumulation count whose default is 1; a GAN loop whose generator's backward and step both run
every n_critic steps beside the critic's on every step (two optimizers, no accumulation).

With a count the source gives (a literal, an option's declared default) above 1,
the second backward() is also the crash finding (issue 39, item 5); a count the source does not give leaves
the step wrong and reports no crash.

Written from scratch for these tests: a speech model's training loop, a small GAN, and a project whose
Trainer class in engine.py accumulates over its options' count."""
import textwrap

import pytest

from hvdkit.check.findings import OK, WRONG
from hvdkit.check.static import analyze

from crash_scripts import check_project, line_of

ACCUM = textwrap.dedent("""
    import argparse

    import torch
    import horovod.torch as hvd
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler


    def main():
        p = argparse.ArgumentParser()
        p.add_argument("--accum-grad", type=int, default=DEFAULT)
        p.add_argument("--epochs", type=int, default=5)
        args = p.parse_args()
        hvd.init()
        torch.set_num_threads(1)
        data = TensorDataset(torch.randn(1024, 40), torch.randint(0, 30, (1024,)))
        sampler = DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())
        loader = DataLoader(data, batch_size=16, sampler=sampler)
        model = torch.nn.Sequential(torch.nn.Linear(40, 128), torch.nn.ReLU(), torch.nn.Linear(128, 30))
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3 * hvd.size())
        optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters()WRAP_OPTIONS)
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(optimizer, root_rank=0)
        for epoch in range(args.epochs):
            sampler.set_epoch(epoch)
            optimizer.zero_grad()
            for it, (x, y) in enumerate(loader):
                loss = torch.nn.functional.cross_entropy(model(x), y) / args.accum_grad
                loss.backward()
                if (it + 1) % args.accum_grad == 0:
                    optimizer.step()
                    optimizer.zero_grad()
            if hvd.rank() == 0:
                torch.save(model.state_dict(), f"epoch{epoch}.pt")


    if __name__ == "__main__":
        main()
""").lstrip()

GAN = textwrap.dedent("""
    import torch
    import horovod.torch as hvd
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler

    hvd.init()
    torch.set_num_threads(1)
    data = TensorDataset(torch.randn(2048, 64))
    sampler = DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())
    loader = DataLoader(data, batch_size=32, sampler=sampler)
    gen = torch.nn.Sequential(torch.nn.Linear(16, 64), torch.nn.Tanh())
    critic = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.LeakyReLU(0.2), torch.nn.Linear(64, 1))
    opt_g = hvd.DistributedOptimizer(torch.optim.Adam(gen.parameters(), lr=1e-4 * hvd.size()),
                                     named_parameters=gen.named_parameters(prefix="g"))
    opt_c = hvd.DistributedOptimizer(torch.optim.Adam(critic.parameters(), lr=1e-4 * hvd.size()),
                                     named_parameters=critic.named_parameters(prefix="c"))
    hvd.broadcast_parameters(gen.state_dict(), root_rank=0)
    hvd.broadcast_parameters(critic.state_dict(), root_rank=0)
    step = 0
    for epoch in range(10):
        sampler.set_epoch(epoch)
        for (real,) in loader:
            opt_c.zero_grad()
            fake = gen(torch.randn(real.size(0), 16)).detach()
            loss_c = critic(fake).mean() - critic(real).mean()
            loss_c.backward()
            opt_c.step()
            if step % 5 == 0:
                opt_g.zero_grad()
                loss_g = -critic(gen(torch.randn(real.size(0), 16))).mean()
                loss_g.backward()
                opt_g.step()
            step += 1
        if hvd.rank() == 0:
            torch.save({"gen": gen.state_dict(), "critic": critic.state_dict()}, "gan.pt")
""").lstrip()


def _step5(tmp_path, source):
    path = tmp_path / "train.py"
    path.write_text(source)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = \"asr\"\n")
    findings, _, _ = analyze(str(path))
    return findings[5]


def test_accumulation_with_backward_passes_per_step_left_at_one_is_wrong(tmp_path):
    f = _step5(tmp_path, ACCUM.replace("DEFAULT", "4").replace("WRAP_OPTIONS", ""))
    assert f.verdict == WRONG
    assert "backward_passes_per_step" in f.evidence and "AssertionError" in f.evidence


@pytest.mark.parametrize("default, options", [("4", ",\n        backward_passes_per_step=args.accum_grad"),
                                              ("1", "")])
def test_accumulation_told_to_horovod_or_of_one_pass_is_ok(tmp_path, default, options):
    f = _step5(tmp_path, ACCUM.replace("DEFAULT", default).replace("WRAP_OPTIONS", options))
    assert f.verdict == OK, f.evidence


def test_a_gan_stepping_its_generator_every_n_steps_is_not_accumulation(tmp_path):
    assert _step5(tmp_path, GAN).verdict == OK


def _crash(tmp_path, source):
    path = tmp_path / "train.py"
    path.write_text(source)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = \"asr\"\n")
    return analyze(str(path))[2]["crash"]


def test_a_known_count_above_one_is_also_the_crash_at_the_second_backward(tmp_path):
    broken = ACCUM.replace("DEFAULT", "4").replace("WRAP_OPTIONS", "")
    crash = _crash(tmp_path, broken)
    assert crash is not None and crash["error"].startswith("AssertionError: Gradients were computed more than")
    assert crash["line"] == line_of(broken, "loss.backward()") and "steps every 4" in crash["why"]


@pytest.mark.parametrize("default, options", [("4", ",\n        backward_passes_per_step=args.accum_grad"),
                                              ("1", ""), ("None", "")])
def test_no_crash_when_told_of_one_pass_or_the_count_is_not_given(tmp_path, default, options):
    source = ACCUM.replace("DEFAULT", default).replace("WRAP_OPTIONS", options)
    assert _crash(tmp_path, source) is None
    # a count the source does not give (default None: a run must pass it) is the step's fault alone
    assert _step5(tmp_path, source).verdict == (WRONG if default == "None" else OK)


TRAINER_PROJECT = {
    "train.py": textwrap.dedent("""
        import torch
        import horovod.torch as hvd

        from asr.data import make_loader
        from asr.engine import Trainer
        from asr.options import parse_options


        def main():
            cfg = parse_options()
            hvd.init()
            torch.set_num_threads(1)
            loader, sampler = make_loader(cfg)
            model = torch.nn.Sequential(torch.nn.Linear(40, 64), torch.nn.ReLU(), torch.nn.Linear(64, 30))
            trainer = Trainer(model, cfg)
            for epoch in range(cfg.epochs):
                sampler.set_epoch(epoch)
                trainer.train_epoch(loader)
                if hvd.rank() == 0:
                    torch.save(model.state_dict(), f"{cfg.out}/epoch{epoch}.pt")


        if __name__ == "__main__":
            main()
    """).lstrip(),
    "asr/__init__.py": "",
    "asr/options.py": textwrap.dedent("""
        import argparse


        def parse_options(argv=None):
            p = argparse.ArgumentParser(description="conformer training on Horovod")
            p.add_argument("--lr", type=float, default=5e-4)
            p.add_argument("--epochs", type=int, default=20)
            p.add_argument("--batch-size", type=int, default=8)
            p.add_argument("--accum-steps", type=int, default=8, help="batches per optimizer step")
            p.add_argument("--out", default="runs")
            return p.parse_args(argv)
    """).lstrip(),
    "asr/data.py": textwrap.dedent("""
        import torch
        import horovod.torch as hvd
        from torch.utils.data import DataLoader, TensorDataset
        from torch.utils.data.distributed import DistributedSampler


        def make_loader(cfg):
            data = TensorDataset(torch.randn(4096, 40), torch.randint(0, 30, (4096,)))
            sampler = DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())
            return DataLoader(data, batch_size=cfg.batch_size, sampler=sampler), sampler
    """).lstrip(),
    "asr/engine.py": textwrap.dedent("""
        import torch
        import horovod.torch as hvd


        class Trainer:
            def __init__(self, model, cfg):
                self.model, self.cfg = model, cfg
                opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr * hvd.size())
                self.optimizer = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters()OPTIONS)
                hvd.broadcast_parameters(model.state_dict(), root_rank=0)
                hvd.broadcast_optimizer_state(self.optimizer, root_rank=0)

            def train_epoch(self, loader):
                self.model.train()
                self.optimizer.zero_grad()
                for step, (x, y) in enumerate(loader):
                    loss = torch.nn.functional.cross_entropy(self.model(x), y) / self.cfg.accum_steps
                    loss.backward()
                    if (step + 1) % self.cfg.accum_steps == 0:
                        self.optimizer.step()
                        self.optimizer.zero_grad()
    """).lstrip(),
}


def _trainer(options):
    return {**TRAINER_PROJECT, "asr/engine.py": TRAINER_PROJECT["asr/engine.py"].replace("OPTIONS", options)}


def test_a_trainer_accumulating_over_its_options_count_crashes(tmp_path):
    broken = _trainer("")
    crash, flagged, _ = check_project(tmp_path, broken)
    assert crash is not None and crash["file"] == "asr/engine.py"
    assert crash["line"] == line_of(broken["asr/engine.py"], "loss.backward()") and "every 8" in crash["why"]
    assert flagged == {5: "wrong"}


def test_the_trainer_that_tells_horovod_the_count_has_no_crash(tmp_path):
    told = _trainer(",\n            backward_passes_per_step=self.cfg.accum_steps")
    crash, flagged, _ = check_project(tmp_path, told)
    assert (crash, flagged) == (None, {})
