"""`hvdkit check` on an entry script that hands its model to the project's own training code (issue 39,
classes 1 and 2: the work is in the project's modules). The entry builds the model and the data, then an
`Engine` of its package (or a `train_one_epoch` function) trains: no optimizer is made and no gradient is
taken in the script. When that package is not there, the broadcast and the checkpoint may be in it: "cannot
tell", naming the calls handed the model, never "missing". When it is there it is read and decides. A
script that trains in a loop of its own, with an absent helper merely handed the model, is judged on the
script.

Written from scratch for these tests: a small protein-contact predictor with its `contactnet` package."""
import textwrap

import pytest

from hvdkit.check.findings import MISSING, OK, UNKNOWN
from hvdkit.check.static import analyze

ENTRY = textwrap.dedent("""
    import argparse

    import horovod.torch as hvd
    import torch

    from contactnet.data import make_loaders
    from contactnet.engine import Engine
    from contactnet.model import ContactNet


    def main():
        ap = argparse.ArgumentParser()
        ap.add_argument("--data", default="/scratch/pdb_contacts")
        ap.add_argument("--epochs", type=int, default=30)
        ap.add_argument("--lr", type=float, default=3e-4)
        args = ap.parse_args()
        hvd.init()
        if torch.cuda.is_available():
            torch.cuda.set_device(hvd.local_rank())
        train_loader, val_loader = make_loaders(args.data, hvd.size(), hvd.rank())
        model = ContactNet(channels=64)
        if torch.cuda.is_available():
            model.cuda()
        engine = Engine(model, train_loader, val_loader, lr=args.lr)
        for epoch in range(args.epochs):
            engine.fit_epoch(epoch)


    if __name__ == "__main__":
        main()
""").lstrip()

ENGINE = textwrap.dedent("""
    import horovod.torch as hvd
    import torch


    class Engine:
        def __init__(self, model, train_loader, val_loader, lr):
            self.model, self.train_loader, self.val_loader = model, train_loader, val_loader
            opt = torch.optim.AdamW(model.parameters(), lr=lr * hvd.size())
            self.opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
            BROADCAST

        def fit_epoch(self, epoch):
            self.model.train()
            for x, y in self.train_loader:
                self.opt.zero_grad()
                loss = torch.nn.functional.binary_cross_entropy_with_logits(self.model(x), y)
                loss.backward()
                self.opt.step()
            if hvd.rank() == 0:
                torch.save(self.model.state_dict(), f"contactnet-{epoch}.pt")
""").lstrip()

BROADCAST = "hvd.broadcast_parameters(model.state_dict(), root_rank=0)\n" \
            "        hvd.broadcast_optimizer_state(self.opt, root_rank=0)"


def _check(tmp_path, entry=ENTRY, engine=None):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = \"contactnet\"\n")
    (tmp_path / "train.py").write_text(entry)
    if engine is not None:
        pkg = tmp_path / "contactnet"
        pkg.mkdir()
        (pkg / "__init__.py").write_text("")
        (pkg / "engine.py").write_text(engine)
    findings, _, _ = analyze(str(tmp_path / "train.py"))
    return findings


@pytest.mark.parametrize("step", [6, 7])
def test_training_handed_to_an_absent_engine_leaves_broadcast_and_checkpoint_cannot_tell(tmp_path, step):
    f = _check(tmp_path)[step]
    assert f.verdict == UNKNOWN
    assert "Engine(...)" in f.evidence and "module `contactnet` is not in the project" in f.evidence


def test_the_engine_read_with_its_broadcast_and_rank0_save_is_ok(tmp_path):
    findings = _check(tmp_path, engine=ENGINE.replace("BROADCAST", BROADCAST))
    assert findings[6].verdict == OK and findings[7].verdict == OK


def test_the_engine_read_without_a_broadcast_is_missing(tmp_path):
    assert _check(tmp_path, engine=ENGINE.replace("BROADCAST", "pass"))[6].verdict == MISSING


LOOP = ENTRY.replace(
    "from contactnet.engine import Engine\n", "from contactnet.engine import build_optimizer, log_summary\n").replace(
    """    engine = Engine(model, train_loader, val_loader, lr=args.lr)
    for epoch in range(args.epochs):
        engine.fit_epoch(epoch)
""", """    log_summary(model)
    opt = hvd.DistributedOptimizer(build_optimizer(args.lr * hvd.size()),
                                   named_parameters=model.named_parameters())
    for epoch in range(args.epochs):
        for x, y in train_loader:
            opt.zero_grad()
            torch.nn.functional.binary_cross_entropy_with_logits(model(x), y).backward()
            opt.step()
""")
assert "log_summary(model)" in LOOP  # the replacement applied: the script trains in its own loop


def test_a_loop_of_the_scripts_own_beside_an_absent_helper_handed_the_model_is_judged_on_the_script(tmp_path):
    # The training is the script's own loop: no checkpoint there is missing. The helper handed the model may
    # broadcast it: that one step cannot be told.
    findings = _check(tmp_path, entry=LOOP)
    assert findings[7].verdict == MISSING
    assert findings[6].verdict == UNKNOWN and "`log_summary(...)`" in findings[6].evidence, findings[6]


# The script makes and wraps the optimizer itself, then hands model and optimizer to the absent package's
# Trainer, which trains (`trainer.fit(...)`: a method of the project's object, not Keras' fit: the script
# uses no TensorFlow). Handed both, that code may broadcast the starting state; what it reports is not seen.
WRAPPED = ENTRY.replace("""    engine = Engine(model, train_loader, val_loader, lr=args.lr)
    for epoch in range(args.epochs):
        engine.fit_epoch(epoch)
""", """    opt = torch.optim.AdamW(model.parameters(), lr=args.lr * hvd.size())
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
    engine = Engine(HANDED)
    engine.fit(train_loader, val_loader, epochs=args.epochs)
""")
assert "HANDED" in WRAPPED


def test_a_wrapped_optimizer_and_the_model_handed_to_absent_code_may_be_broadcast_there(tmp_path):
    findings = _check(tmp_path, entry=WRAPPED.replace("HANDED", "model, opt"))
    assert findings[6].verdict == UNKNOWN and "Engine(...)" in findings[6].evidence
    assert findings[8].verdict != MISSING  # no Keras fit: the trainer's own code reports


def test_the_model_alone_handed_there_cannot_broadcast_the_optimizers_state_so_missing(tmp_path):
    assert _check(tmp_path, entry=WRAPPED.replace("HANDED", "model"))[6].verdict == MISSING
