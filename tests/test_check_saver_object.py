"""Step 7, flat: an early-stopping helper of a module that is not there, made with a checkpoint file's path
(`EarlyStopper(os.path.join(out, f"fold{k}_best.pt"), patience=10)`) and handed the model each epoch
(`stopper.step(score, model)`, its result used to stop): it may write the checkpoint, so "no checkpoint is
written" cannot be said; "cannot tell", naming it. Made with no path, it is no evidence of a writer. So is
a helper of that module handed the model and an option whose default names a .pt file
(`save_on_rank0(state.model, args.ckpt)`, the model held by an object that module made), its result unused.

Written from scratch for these tests: a flat entry script whose `sleepkit` package is not at hand."""
import textwrap

from hvdkit.check import MISSING, UNKNOWN
from hvdkit.check.static import analyze

SCRIPT = '''
    """Sleep staging.  horovodrun -np 4 python train.py"""
    import os

    import torch
    import horovod.torch as hvd

    from sleepkit.early_stop import EarlyStopper


    def main(out="runs", fold=0, epochs=60):
        hvd.init()
        torch.set_num_threads(1)
        x = torch.randn(8192, 30)[hvd.rank()::hvd.size()]
        y = torch.randint(0, 5, (8192,))[hvd.rank()::hvd.size()]
        model = torch.nn.Sequential(torch.nn.Linear(30, 64), torch.nn.ReLU(), torch.nn.Linear(64, 5))
        opt = torch.optim.Adam(model.parameters(), lr=1e-3 * hvd.size())
        opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        stopper = EarlyStopper({made})
        for epoch in range(epochs):
            for s in range(0, len(x), 128):
                opt.zero_grad()
                torch.nn.functional.cross_entropy(model(x[s:s + 128]), y[s:s + 128]).backward()
                opt.step()
            with torch.no_grad():
                acc = hvd.allreduce((model(x).argmax(1) == y).float().mean(), name="acc")
            if stopper.step(float(acc), model, epoch):
                break


    if __name__ == "__main__":
        main()
'''


def step7(tmp_path, made):
    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent(SCRIPT.replace("{made}", made)).lstrip("\n"))
    return analyze(str(path))[0][7]


def test_a_stopper_given_a_checkpoint_path_and_the_model_may_write_it(tmp_path):
    f = step7(tmp_path, 'os.path.join(out, f"fold{fold}_best.pt"), patience=10')
    assert f.verdict == UNKNOWN and "stopper.step" in f.evidence, f


def test_a_stopper_given_no_path_is_no_writer(tmp_path):
    assert step7(tmp_path, "patience=10").verdict == MISSING


DIRECT = '''
    """Two-tower recommender.  horovodrun -np 4 python train.py"""
    import argparse

    import torch
    import horovod.torch as hvd

    from recokit.io import build_state, save_on_rank0

    p = argparse.ArgumentParser()
    p.add_argument("--ckpt", default={path})
    args = p.parse_args()
    hvd.init()
    torch.set_num_threads(1)
    x = torch.randn(8192, 32)[hvd.rank()::hvd.size()]
    model = torch.nn.Linear(32, 32)
    opt = hvd.DistributedOptimizer(torch.optim.Adam(model.parameters(), lr=1e-3 * hvd.size()),
                                   named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    state = build_state(model, opt)
    for epoch in range(10):
        for s in range(0, len(x), 256):
            opt.zero_grad()
            (model(x[s:s + 256]) - x[s:s + 256]).pow(2).mean().backward()
            opt.step()
        save_on_rank0(state.model, args.ckpt)
'''


def test_a_helper_handed_the_model_and_a_checkpoint_path_option_may_save(tmp_path):
    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent(DIRECT.replace("{path}", '"twotower.pt"')).lstrip("\n"))
    f = analyze(str(path))[0][7]
    assert f.verdict == UNKNOWN and "save_on_rank0" in f.evidence, f
