"""`hvdkit check` on a project with a folder named like a variable of the script: `data/` holds the raw
files (no Python in it: a namespace folder to Python), and the script's `data = Catalog(...)` calls
`data.loader(...)`. A variable is no module: the folder is not read as the project's code, and what the
script's own classes do is read as written.

Written from scratch for these tests: a galaxy photo-z trainer with a `data/` folder of catalogs."""
import textwrap

from hvdkit.check.findings import OK
from hvdkit.check.static import analyze

SCRIPT = textwrap.dedent("""
    import horovod.torch as hvd
    import torch


    class Catalog:
        def __init__(self, path):
            self.x, self.y = torch.randn(4096, 5), torch.rand(4096)

        def loader(self, batch, rank, size):
            part = torch.utils.data.TensorDataset(self.x[rank::size], self.y[rank::size])
            return torch.utils.data.DataLoader(part, batch_size=batch, shuffle=True)


    def main():
        hvd.init()
        torch.set_num_threads(1)
        data = Catalog("data/dr16.fits")
        loader = data.loader(128, hvd.rank(), hvd.size())
        model = torch.nn.Sequential(torch.nn.Linear(5, 64), torch.nn.ReLU(), torch.nn.Linear(64, 1))
        opt = hvd.DistributedOptimizer(torch.optim.Adam(model.parameters(), lr=1e-3 * hvd.size()),
                                       named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        for epoch in range(5):
            for x, y in loader:
                opt.zero_grad()
                torch.nn.functional.mse_loss(model(x).squeeze(1), y).backward()
                opt.step()


    if __name__ == "__main__":
        main()
""").lstrip()


def test_a_folder_named_like_a_variable_is_not_read_as_a_module(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = \"photoz\"\n")
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "dr16.fits").write_bytes(b"SIMPLE  =                    T")
    (tmp_path / "train.py").write_text(SCRIPT)
    findings, _, report = analyze(str(tmp_path / "train.py"))
    assert report["files_read"] == ["train.py"]
    assert findings[3].verdict == OK
