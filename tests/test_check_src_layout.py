"""`hvdkit check` on a project laid out for installation (issue 39: "resolve the script's imports of its own
code"): the package lives in `src/<pkg>/` (or the folder pyproject.toml's setuptools `where` names), the
entry script in `scripts/`, and no `sys.path` line: `pip install -e .` makes the package importable. Its
modules are the project's own code and are read; a folder no installation maps is not.

Written from scratch for these tests: a wind-turbine fault classifier, `turbofault`, whose trainer saves
the checkpoint on rank 0 only (or, broken, on every rank)."""
import textwrap

import pytest

from hvdkit.check.findings import OK, UNKNOWN, WRONG
from hvdkit.check.static import analyze

ENTRY = textwrap.dedent("""
    import horovod.torch as hvd
    import torch

    from turbofault.data import scada_windows
    from turbofault.trainer import save_checkpoint


    def main():
        hvd.init()
        torch.set_num_threads(1)
        data = scada_windows("/scratch/scada.npy")
        sampler = torch.utils.data.distributed.DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())
        loader = torch.utils.data.DataLoader(data, batch_size=64, sampler=sampler)
        model = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(144, 4))
        opt = hvd.DistributedOptimizer(torch.optim.SGD(model.parameters(), lr=0.01 * hvd.size()),
                                       named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        for epoch in range(10):
            sampler.set_epoch(epoch)
            for x, y in loader:
                opt.zero_grad()
                torch.nn.functional.cross_entropy(model(x), y).backward()
                opt.step()
            save_checkpoint(model, opt, epoch, "ckpt")


    if __name__ == "__main__":
        main()
""").lstrip()

TRAINER = textwrap.dedent("""
    import os

    import horovod.torch as hvd
    import torch


    def save_checkpoint(model, opt, epoch, folder):
        GUARD
        torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "epoch": epoch},
                   os.path.join(folder, f"epoch{epoch}.pt"))
""").lstrip()

DATA = "import numpy as np\nimport torch\n\n\ndef scada_windows(path):\n" \
       "    a = np.load(path)\n    return torch.utils.data.TensorDataset(torch.from_numpy(a[:, :-1]), " \
       "torch.from_numpy(a[:, -1]).long())\n"


def _project(tmp_path, guard, pyproject="[project]\nname = \"turbofault\"\n", src="src"):
    (tmp_path / "pyproject.toml").write_text(pyproject)
    pkg = tmp_path / src / "turbofault"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "trainer.py").write_text(TRAINER.replace("GUARD", guard))
    (pkg / "data.py").write_text(DATA)
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "train.py").write_text(ENTRY)
    findings, _, report = analyze(str(tmp_path / "scripts" / "train.py"))
    return findings[7], report["files_read"]


@pytest.mark.parametrize("guard, verdict", [
    ("if hvd.rank() != 0:\n        return", OK),
    ("pass", WRONG),  # every rank writes the same files
])
def test_the_src_layouts_package_is_read_as_the_projects_own(tmp_path, guard, verdict):
    finding, read = _project(tmp_path, guard)
    assert finding.verdict == verdict
    assert "src/turbofault/trainer.py" in read


def test_the_folder_pyprojects_setuptools_where_names_is_read(tmp_path):
    pyproject = "[project]\nname = \"turbofault\"\n\n[tool.setuptools.packages.find]\nwhere = [\"lib\"]\n"
    finding, read = _project(tmp_path, "pass", pyproject, src="lib")
    assert finding.verdict == WRONG
    assert "lib/turbofault/trainer.py" in read


def test_a_folder_no_installation_maps_is_not_read(tmp_path):
    # code/turbofault/ is neither src/ nor named by pyproject.toml: the import cannot be resolved there
    finding, read = _project(tmp_path, "pass", src="code")
    assert finding.verdict == UNKNOWN
    assert not any(r.startswith("code/") for r in read)
