"""`hvdkit data torch-mnist`, then an unmodified torchvision script, `datasets.MNIST(root, download=True)`,
at 2 ranks: each rank reads the staged files, and no download is even tried -- every proxy variable points at
a listener on 127.0.0.1 that counts connections, and a control run with nothing staged shows torchvision's
downloader does reach it."""
import gzip
import os
import socket
import subprocess
import sys
import threading

import numpy as np
import pytest

from conftest import BIN, run_ranks

FASHION = "/usr/share/datasets/fashion-mnist"
pytestmark = [pytest.mark.torch, pytest.mark.horovod,
              pytest.mark.skipif(not os.path.isdir(FASHION), reason="needs Debian's dataset-fashion-mnist")]

# What a user's script does, as Horovod's pytorch_mnist.py does it: a root relative to where it starts.
SCRIPT = """
import numpy as np
import horovod.torch as hvd
from torchvision import datasets

hvd.init()
train = datasets.MNIST("data", train=True, download=True)
test = datasets.MNIST("data", train=False, download=True)
fashion = datasets.FashionMNIST("data", train=False, download=True)
i = 1000 * hvd.rank() + 7
image, label = train[i]
print("SEEN", hvd.rank(), len(train), len(test), len(fashion), i, int(np.asarray(image, dtype=np.int64).sum()),
      label, int(test.targets[i]), int(fashion.targets[i]), flush=True)
"""


class Trap:
    """A listener on 127.0.0.1 that records the first line of every connection and answers 403."""

    def __init__(self):
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.settimeout(0.2)
        self.hits, self.done = [], threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while not self.done.is_set():
            try:
                conn, _ = self.sock.accept()
            except socket.timeout:
                continue
            with conn:
                try:
                    conn.settimeout(5)
                    self.hits.append(conn.recv(4096).split(b"\r\n")[0].decode(errors="replace"))
                    conn.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                except OSError:
                    self.hits.append("(connection dropped)")

    def env(self):
        """os.environ with every proxy variable urllib reads pointing here, and no host exempted."""
        url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        env = {k: v for k, v in os.environ.items() if k.lower() not in ("no_proxy", "hvdkit_data")}
        env.update({k: url for k in ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY",
                                     "ALL_PROXY")})
        return env

    def close(self):
        self.done.set()
        self.thread.join(5)
        self.sock.close()


@pytest.fixture
def trap():
    t = Trap()
    yield t
    t.close()


def _idx(name, offset):
    """An IDX file of Debian's package, read here without hvdkit: header skipped, uint8 payload."""
    with gzip.open(os.path.join(FASHION, name + ".gz")) as f:
        return np.frombuffer(f.read(), np.uint8, offset=offset)


def test_unmodified_script_reads_staged_files_on_2_ranks_offline(tmp_path, trap):
    made = subprocess.run([os.path.join(BIN, "hvdkit"), "data", "torch-mnist"], cwd=tmp_path, env=trap.env(),
                          capture_output=True, text=True, timeout=120)
    assert made.returncode == 0, made.stderr
    assert f"staged {tmp_path}/data/MNIST/raw: Fashion-MNIST" in made.stdout and "NOT MNIST" in made.stdout

    got = run_ranks(2, SCRIPT, cwd=str(tmp_path), env=trap.env(), timeout=300).check()

    images = _idx("train-images-idx3-ubyte", 16).reshape(60000, 28 * 28)
    train_labels, test_labels = _idx("train-labels-idx1-ubyte", 8), _idx("t10k-labels-idx1-ubyte", 8)
    expected = []
    for rank in (0, 1):
        i = 1000 * rank + 7
        expected.append(f"{rank} 60000 10000 10000 {i} {int(images[i].sum(dtype=np.int64))} {train_labels[i]} "
                        f"{test_labels[i]} {test_labels[i]}")
    assert sorted(got.lines("SEEN")) == expected
    assert trap.hits == [], f"a download was attempted: {trap.hits}"
    raw = tmp_path / "data" / "MNIST" / "raw"
    assert sorted(p.name for p in raw.iterdir()) == sorted(
        ["hvdkit-standin.txt", "train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte",
         "t10k-labels-idx1-ubyte"])


def test_the_trap_catches_torchvisions_download(tmp_path, trap):
    """The control: with nothing staged, torchvision's download goes to the trap (and fails): the test above
    would have seen any download it tried."""
    code = "from torchvision import datasets; datasets.MNIST('data', download=True)"
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=trap.env(), capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode != 0 and "Error downloading train-images-idx3-ubyte.gz" in proc.stderr, proc.stderr[-2000:]
    # torchvision 0.28 tries its two mirrors for the first file, https one through a tunnel, then gives up.
    assert trap.hits == ["CONNECT ossci-datasets.s3.amazonaws.com:443 HTTP/1.0",
                         "GET http://yann.lecun.com/exdb/mnist/train-images-idx3-ubyte.gz HTTP/1.1"], trap.hits
