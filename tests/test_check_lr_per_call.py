"""Step 4: one optimizer factory called for two phases (`build_optimizer(model, lr)`): pre-training with
`cfg.lr * hvd.size()`, fine-tuning with the bare `cfg.ft_lr`. Each construction is judged by the argument its
own call handed in, so the fine-tuning optimizer's single-worker LR is flagged; both scaled is ok.

Written from scratch for these tests: a pretrain-then-finetune project with the factory in a module."""

from hvdkit.check import MISSING, OK, WRONG

from crash_scripts import check_project

ENTRY = '''
    """Masked pre-training, then classification.  horovodrun -np 4 python run.py"""
    import torch
    import horovod.torch as hvd

    from ft.optim import build_optimizer

    LR, FT_LR = 5e-4, 2e-5

    hvd.init()
    torch.set_num_threads(1)
    torch.manual_seed(0)
    x = torch.randn(4096, 32)[hvd.rank()::hvd.size()]
    encoder = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.GELU())
    head = torch.nn.Linear(64, 32)
    model = torch.nn.Sequential(encoder, head)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    optimizer = build_optimizer(model, LR * hvd.size())
    for i in range(0, len(x), 64):
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x[i:i + 64]), x[i:i + 64]).backward()
        optimizer.step()
    clf = torch.nn.Sequential(encoder, torch.nn.Linear(64, 2))
    hvd.broadcast_parameters(clf.state_dict(), root_rank=0)
    optimizer = build_optimizer(clf, {ft_lr})
    y = (x[:, 0] > 0).long()
    for i in range(0, len(x), 64):
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(clf(x[i:i + 64]), y[i:i + 64]).backward()
        optimizer.step()
    if hvd.rank() == 0:
        torch.save(clf.state_dict(), "clf.pt")
'''

OPTIM = '''
    import torch
    import horovod.torch as hvd


    def build_optimizer(model, lr, weight_decay=0.01):
        opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay)
        return hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
'''


def step4(tmp_path, ft_lr):
    files = {"run.py": ENTRY.replace("{ft_lr}", ft_lr), "ft/__init__.py": "", "ft/optim.py": OPTIM}
    findings = check_project(tmp_path, files, script="run.py")[2]
    return findings[4]


def test_the_fine_tuning_call_handing_the_bare_lr_is_missing_the_scaling(tmp_path):
    f = step4(tmp_path, "FT_LR")
    assert f.verdict == MISSING and "FT_LR handed in at line 24" in f.evidence, f


def test_both_calls_handing_a_scaled_lr_are_ok(tmp_path):
    f = step4(tmp_path, "FT_LR * hvd.size()")
    assert f.verdict == OK, f


def test_a_factory_that_scales_the_lr_it_is_handed_again_scales_it_twice(tmp_path):
    # `lr = lr * hvd.size()` in the factory: what the optimizer gets is that name, not the argument alone
    twice = OPTIM.replace("        opt = torch.optim.AdamW(",
                          "        lr = lr * hvd.size()\n        opt = torch.optim.AdamW(")
    files = {"run.py": ENTRY.replace("{ft_lr}", "FT_LR"), "ft/__init__.py": "", "ft/optim.py": twice}
    f = check_project(tmp_path, files, script="run.py")[2][4]
    assert f.verdict == WRONG and "twice" in f.evidence, f
    once = {"run.py": ENTRY.replace("LR * hvd.size())", "LR)").replace("{ft_lr}", "FT_LR"), "ft/__init__.py": "",
            "ft/optim.py": twice}
    f = check_project(tmp_path / "once", once, script="run.py")[2][4]
    assert f.verdict == OK, f
