"""A script that only launches its training (`horovod.run(train_fn, np=4)`, `torch.multiprocessing.spawn`)
with the training function in a module of the project that is not there: every step's work may be in that
function, so a step not seen is "cannot tell", naming the launch, never "missing" (issue 39, classes 1 and
2). With the module there, the function is read and judged: the broken twin (no broadcast) is flagged.

A tabular trainer launched in-process by horovod.run, written from scratch for these tests."""
import textwrap

from crash_scripts import Source, check_project

from hvdkit.check.findings import UNKNOWN

RUN = textwrap.dedent("""
    \"\"\"Launch the tabular trainer on 4 workers in-process: python run.py --epochs 20\"\"\"
    import argparse

    import horovod

    from tabular.train import train_fn

    DEFAULTS = {"data_dir": "data/adult", "batch_size": 256, "epochs": 30, "lr": 3e-4}


    def main():
        p = argparse.ArgumentParser()
        p.add_argument("--epochs", type=int)
        p.add_argument("--np", type=int, default=4)
        args = p.parse_args()
        cfg = dict(DEFAULTS)
        if args.epochs:
            cfg["epochs"] = args.epochs
        results = horovod.run(train_fn, args=(cfg,), np=args.np, use_gloo=True)
        print("best accuracy per worker:", results)


    if __name__ == "__main__":
        main()
""").lstrip()

TRAIN = Source(textwrap.dedent("""
    import torch
    import horovod.torch as hvd
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler


    def train_fn(cfg):
        hvd.init()
        torch.set_num_threads(1)
        data = TensorDataset(torch.randn(2048, 14), torch.randint(0, 2, (2048,)))
        sampler = DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())
        loader = DataLoader(data, batch_size=cfg["batch_size"], sampler=sampler)
        model = torch.nn.Sequential(torch.nn.Linear(14, 64), torch.nn.ReLU(), torch.nn.Linear(64, 2))
        opt = torch.optim.AdamW(model.parameters(), lr=cfg["lr"] * hvd.size())
        opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(opt, root_rank=0)
        best = 0.0
        for epoch in range(cfg["epochs"]):
            sampler.set_epoch(epoch)
            correct = torch.zeros(2)
            for x, y in loader:
                opt.zero_grad()
                out = model(x)
                torch.nn.functional.cross_entropy(out, y).backward()
                opt.step()
                correct += torch.tensor([(out.argmax(1) == y).sum().item(), len(y)], dtype=torch.float32)
            total = hvd.allreduce(correct, op=hvd.Sum, name="acc")
            best = max(best, (total[0] / total[1]).item())
            if hvd.rank() == 0:
                torch.save(model.state_dict(), "best.pt")
        return best
""").lstrip())


def test_a_launch_of_a_training_that_is_not_there_is_cannot_tell(tmp_path):
    crash, flagged, findings = check_project(tmp_path, {"run.py": RUN}, script="run.py")
    assert (crash, flagged) == (None, {})
    assert all(f.verdict == UNKNOWN for f in findings.values()), {n: f.verdict for n, f in findings.items()}
    assert "`horovod.run(...)` at line" in findings[6].evidence and "`tabular` is not in the project" in \
        findings[6].evidence


def test_the_same_launch_with_its_module_there_is_judged(tmp_path):
    files = {"run.py": RUN, "tabular/__init__.py": "", "tabular/train.py": TRAIN}
    crash, flagged, findings = check_project(tmp_path / "right", files, script="run.py")
    assert (crash, flagged) == (None, {})
    broken = {**files, "tabular/train.py": TRAIN.replace(
        "    hvd.broadcast_parameters(model.state_dict(), root_rank=0)\n"
        "    hvd.broadcast_optimizer_state(opt, root_rank=0)\n", "")}
    crash, flagged, _ = check_project(tmp_path / "broken", broken, script="run.py")
    assert flagged == {6: "missing"}


def test_a_call_of_unread_code_that_is_no_launch_keeps_the_scripts_verdicts(tmp_path):
    # the script trains itself and maps its data through a parser of a module that is not there: not a launch
    script = TRAIN.replace("import torch\n", "import torch\n\nfrom tabular.io import parse_row\n", 1).replace(
        "    hvd.broadcast_parameters(model.state_dict(), root_rank=0)\n"
        "    hvd.broadcast_optimizer_state(opt, root_rank=0)\n", "    rows = list(map(parse_row, []))\n") + \
        "\n\nif __name__ == \"__main__\":\n    train_fn({\"batch_size\": 64, \"epochs\": 2, \"lr\": 0.01})\n"
    crash, flagged, _ = check_project(tmp_path, {"train.py": script})
    assert flagged == {6: "missing"}
