"""`hvdkit check`'s crash finding for a relative import of the package's own code that is not there (issue 39,
item 5). A training module inside a package (`python -m speechpkg.train`, or launched by the package's CLI)
that runs `from .features import ...` needs speechpkg/features.py: no installed package can answer a relative
import, so when the package lacks that file the import raises ModuleNotFoundError where it runs, here inside
the function horovod.run launches. The correct twin has the module; the same file copied alone into a folder
that is no package (its modules left behind) says nothing about them and reports no crash.

Written from scratch for these tests: a small speech-command classifier package."""
import textwrap

from crash_scripts import check_project, line_of, write_project

from hvdkit.check.static import analyze


def src(text):
    return textwrap.dedent(text).lstrip()


TRAIN = src("""
    import torch
    import horovod.torch as hvd
    from torch.utils.data import DataLoader
    from torch.utils.data.distributed import DistributedSampler

    from .model import KeywordNet


    def run(cfg):
        hvd.init()
        torch.set_num_threads(1)
        from .features import LogMelDataset

        data = LogMelDataset(cfg["train_dir"])
        sampler = DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())
        loader = DataLoader(data, batch_size=cfg["batch_size"], sampler=sampler)
        model = KeywordNet(cfg["classes"])
        opt = torch.optim.SGD(model.parameters(), lr=cfg["lr"] * hvd.size(), momentum=0.9)
        opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(opt, root_rank=0)
        for epoch in range(cfg["epochs"]):
            sampler.set_epoch(epoch)
            total, count = torch.zeros(()), torch.zeros(())
            for x, y in loader:
                opt.zero_grad()
                loss = torch.nn.functional.cross_entropy(model(x), y)
                loss.backward()
                opt.step()
                total += loss.detach() * len(y)
                count += len(y)
            mean = hvd.allreduce(total, op=hvd.Sum) / hvd.allreduce(count, op=hvd.Sum)
            if hvd.rank() == 0:
                print(f"epoch {epoch} loss {mean.item():.4f}")
                torch.save(model.state_dict(), cfg["out"])
""")

MODEL = src("""
    import torch


    class KeywordNet(torch.nn.Module):
        def __init__(self, classes):
            super().__init__()
            self.net = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(40 * 101, classes))

        def forward(self, x):
            return self.net(x)
""")

FEATURES = src("""
    import torch


    class LogMelDataset(torch.utils.data.Dataset):
        def __init__(self, folder):
            self.items = sorted(torch.load(f"{folder}/index.pt"))

        def __len__(self):
            return len(self.items)

        def __getitem__(self, i):
            return self.items[i]
""")


def _package(with_features):
    files = {"speechpkg/__init__.py": "", "speechpkg/train.py": TRAIN, "speechpkg/model.py": MODEL}
    if with_features:
        files["speechpkg/features.py"] = FEATURES
    return files


def test_a_relative_import_of_a_module_the_package_lacks_is_the_crash(tmp_path):
    crash, _, _ = check_project(tmp_path / "proj", _package(False), script="speechpkg/train.py")
    assert crash is not None
    assert crash["error"].startswith("ModuleNotFoundError")
    assert crash["line"] == line_of(TRAIN, "from .features import")
    assert "features.py" in crash["why"]


def test_the_package_with_its_module_has_no_crash(tmp_path):
    crash, flagged, _ = check_project(tmp_path / "proj", _package(True), script="speechpkg/train.py")
    assert crash is None
    assert flagged == {}


def test_the_file_copied_alone_outside_its_package_reports_no_crash(tmp_path):
    write_project(tmp_path / "flat", {"train.py": TRAIN})
    _, _, info = analyze(str(tmp_path / "flat" / "train.py"))
    assert info["crash"] is None
