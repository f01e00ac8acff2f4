"""Entry scripts checked without their package (the flat file alone): what they hand to code that is not
there decides what can be said.

- Nothing of the training is in the file (`best = run(cfg, device)` of `from vitproj.train import run`):
  steps 5 to 8 are "cannot tell", naming that call, not "never averaged" / "no checkpoint".
- The model and optimizer are made here and handed to a Trainer of the absent package, whose methods train
  (no optimizer step in the file): the training is that code's. A resume that loads the checkpoint on rank 0
  alone after the broadcast, before that training, is still wrong: the other ranks keep the broadcast
  weights.
- A tracker of the absent package made with where to write (`BestTracker(cfg.out_dir)`) and handed the model
  may write the checkpoint, even when what it returns is used (`improved = tracker.update(name, acc, model)`):
  "cannot tell", not "no checkpoint is written".

Written from scratch for these tests: flat entry scripts of three course and sweep projects."""
import textwrap

from hvdkit.check import MISSING, OK, UNKNOWN, WRONG
from hvdkit.check.static import analyze

LAUNCH = '''
    """Entry point of our sbatch scripts.  srun python launch.py --exp small"""
    import argparse

    import torch
    import horovod.torch as hvd

    from vitproj.train import run

    EXPERIMENTS = {"small": {"dim": 192, "lr": 1e-3}, "base": {"dim": 384, "lr": 5e-4}}


    def main():
        ap = argparse.ArgumentParser()
        ap.add_argument("--exp", choices=sorted(EXPERIMENTS), default="small")
        args = ap.parse_args()
        cfg = dict(EXPERIMENTS[args.exp], epochs=30)
        hvd.init()
        if torch.cuda.is_available():
            torch.cuda.set_device(hvd.local_rank())
        best = run(cfg, torch.device("cuda" if torch.cuda.is_available() else "cpu"))
        if hvd.rank() == 0:
            print(f"best val acc {best:.4f}")


    if __name__ == "__main__":
        main()
'''

RESUME = '''
    """Sentiment LSTM.  horovodrun -np 4 python run.py --resume auto"""
    import argparse
    import os

    import torch
    import horovod.torch as hvd

    from textcls import LSTMClassifier
    from textcls.data import make_loaders
    from textcls.trainer import Trainer

    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--ckpt-dir", default="ckpt")
    parser.add_argument("--resume", default="auto")
    args = parser.parse_args()

    hvd.init()
    torch.set_num_threads(1)
    vocab, train_loader, dev_loader, train_sampler = make_loaders("train.tsv", "dev.tsv", hvd.rank(), hvd.size())
    model = LSTMClassifier(len(vocab))
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr * hvd.size())
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    {first}
    start_epoch = 0
    last = os.path.join(args.ckpt_dir, "last.pt")
    if args.resume == "auto" and os.path.exists(last) and hvd.rank() == 0:
        ckpt = torch.load(last, map_location="cpu")
        model.load_state_dict(ckpt["model"])
        start_epoch = ckpt["epoch"] + 1
    start_epoch = hvd.broadcast_object(start_epoch, root_rank=0)
    {after}
    trainer = Trainer(model, optimizer, args.ckpt_dir)
    for epoch in range(start_epoch, args.epochs):
        train_sampler.set_epoch(epoch)
        trainer.fit_epoch(train_loader)
        trainer.save(epoch)
'''

BROADCAST = "hvd.broadcast_parameters(model.state_dict(), root_rank=0)"

SWEEP = '''
    """Learning-rate sweep.  horovodrun -np 4 python sweep.py"""
    import torch
    import torch.nn.functional as F
    import horovod.torch as hvd

    from sweeps.config import SweepConfig
    from sweeps.data import loaders
    from sweeps.tracking import BestTracker


    def run_trial(cfg, lr):
        train_loader, val_loader, sampler = loaders(cfg, hvd.rank(), hvd.size())
        model = torch.nn.Sequential(torch.nn.Linear(cfg.n_features, 64), torch.nn.ReLU(), torch.nn.Linear(64, 2))
        optimizer = torch.optim.SGD(model.parameters(), lr=lr * hvd.size(), momentum=0.9)
        optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        for epoch in range(cfg.epochs):
            sampler.set_epoch(epoch)
            for x, y in train_loader:
                optimizer.zero_grad()
                F.cross_entropy(model(x), y).backward()
                optimizer.step()
        correct = sum((model(x).argmax(1) == y).sum() for x, y in val_loader)
        acc = hvd.allreduce(correct.float(), op=hvd.Sum) / len(val_loader.dataset)
        return model, acc.item()


    def main():
        hvd.init()
        torch.set_num_threads(1)
        cfg = SweepConfig()
        tracker = BestTracker({made_with})
        for lr in cfg.lrs:
            model, acc = run_trial(cfg, lr)
            if hvd.rank() == 0:
                improved = tracker.update(f"lr{lr:g}", acc{and_model})
                print(f"lr {lr:g}: acc {acc:.4f}{' (best)' if improved else ''}")


    if __name__ == "__main__":
        main()
'''


def check(tmp_path, text, name="train.py"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).lstrip("\n"))
    findings, _, _ = analyze(str(path))
    return findings


def test_a_script_whose_whole_training_is_in_an_absent_module_cannot_tell(tmp_path):
    findings = check(tmp_path, LAUNCH)
    for step in (5, 6, 7, 8):
        assert findings[step].verdict == UNKNOWN and "`run(...)`" in findings[step].evidence, (step, findings[step])
    assert findings[1].verdict == OK and findings[2].verdict == OK


def test_a_rank0_resume_after_the_broadcast_before_an_absent_trainer_is_wrong(tmp_path):
    late = RESUME.replace("{first}", BROADCAST).replace("{after}", "")
    f = check(tmp_path, late)[6]
    assert f.verdict == WRONG and "after the broadcast" in f.evidence, f
    after_load = RESUME.replace("{first}", "").replace("{after}", BROADCAST)
    assert check(tmp_path, after_load)[6].verdict == OK


def test_a_tracker_made_with_a_folder_and_handed_the_model_may_write_the_checkpoint(tmp_path):
    f = check(tmp_path, SWEEP.replace("{made_with}", "cfg.out_dir, mode=\"max\"").replace("{and_model}", ", model"))
    assert f[7].verdict == UNKNOWN and "tracker.update(...)" in f[7].evidence, f[7]
    # handed no model, or made with nothing that says where to write: no checkpoint is written
    f = check(tmp_path, SWEEP.replace("{made_with}", "cfg.out_dir, mode=\"max\"").replace("{and_model}", ""))
    assert f[7].verdict == MISSING, f[7]
    f = check(tmp_path, SWEEP.replace("{made_with}", "mode=\"max\"").replace("{and_model}", ", model"))
    assert f[7].verdict == MISSING, f[7]
