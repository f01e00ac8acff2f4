"""Checkpoints load without running code: a planted file whose payload would run code when unpickled
(it creates a marker file) is refused on resume with one clear line in both frameworks, and the marker
never appears; an older hvdkit TensorFlow checkpoint (a pickle) is refused with the command that converts
it, and after that conversion the run resumes where it stopped."""
import hashlib
import io
import pickle
import subprocess
import sys

import pytest

from conftest import rank_streams

TORCH_TRAIN = """
import sys
import torch
import hvdkit.torch as hk
ctx = hk.init(seed=0, threads=1)
model = torch.nn.Linear(3, 2)
ckpt = hk.Checkpointer("ckpt")
start = ckpt.restore(model=model)
print("START", start, flush=True)
for epoch in range(start, int(sys.argv[1])):
    with torch.no_grad():
        model.weight.add_(1.0)
    ckpt.save(epoch, model=model, note=f"epoch {epoch}")
print("WEIGHT", repr(float(model.weight.sum())), flush=True)
"""

# Each argument EPOCHS[:DIR] is a run in turn, from the same seed, checkpointing in DIR (default ckpt).
TF_TRAIN = """
import sys
import numpy as np
import keras
import hvdkit.tensorflow as hk
ctx = hk.init(seed=0, threads=1)
for arg in sys.argv[1:]:
    epochs, _, where = arg.partition(":")
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    opt = keras.optimizers.Adam(0.1)
    ckpt = hk.Checkpointer(where or "ckpt")
    start = ckpt.restore(model=model, optimizer=opt)
    print("START", start, flush=True)
    for epoch in range(start, int(epochs)):
        model.layers[0].kernel.assign_add(np.ones((3, 2), "float32"))
        ckpt.save(epoch, model=model, optimizer=opt, note=("epoch", epoch))
    print("WEIGHT", repr(float(np.sum(model.layers[0].kernel.numpy()))), "NOTE", ckpt.values.get("note"), flush=True)
"""


class Planted:
    """Unpickling this calls open(marker, "w"): the file appears if anything unpickles the payload."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return open, (self.marker, "w")


def plant(directory, epoch, data):
    path = directory / f"epoch-{epoch:04d}.ckpt"
    path.write_bytes(data)
    (directory / (path.name + ".sha256")).write_text(hashlib.sha256(data).hexdigest() + "\n")
    return path


def refused(proc, n, *words):
    """Exit 2, no traceback, and every one of the n ranks says the same one line naming `words`."""
    err = proc.stderr.strip()
    assert proc.returncode == 2, f"exit {proc.returncode}\n{proc.stdout[-2000:]}\n{err[-3000:]}"
    assert "Traceback" not in err, err[-3000:]
    by_rank = rank_streams(err.replace("<stderr>:", "<stdout>:"))  # the launcher's per-rank tags, split
    lines = [line for text in by_rank.values() for line in text.splitlines() if ": error: " in line]
    errors = {line.split(": error: ", 1)[1].strip() for line in lines}
    assert len(errors) == 1 and len(lines) == n, err
    (error,) = errors
    for word in ("does not unpickle checkpoints", "convert it with", *words):
        assert word in error, f"{word!r} not in {error!r}"
    assert not proc.lines("START"), "no rank may start training"


def torch_zip(payload):
    import torch
    buf = io.BytesIO()
    torch.save(payload, buf)
    return buf.getvalue()


def unpickle(data, form):
    """What the checkpointers did before: torch.load(weights_only=False) or pickle.loads."""
    if form == "zip":
        import torch
        return torch.load(io.BytesIO(data), weights_only=False)
    return pickle.loads(data)


def payload(marker):
    return {"epoch": 1, "objects": {"model": Planted(marker)}}


CASES = [
    pytest.param("torch", TORCH_TRAIN, "zip", "open, and hvdkit", marks=(pytest.mark.torch, pytest.mark.horovod)),
    pytest.param("torch", TORCH_TRAIN, "pickle", "hvdkit.torch.convert_checkpoint",
                 marks=(pytest.mark.torch, pytest.mark.horovod)),
    # An older hvdkit TensorFlow checkpoint (a pickle) is refused by these same words before it is read.
    pytest.param("tensorflow", TF_TRAIN, "pickle", "is a pickle",
                 marks=(pytest.mark.tensorflow, pytest.mark.horovod)),
]


@pytest.mark.slow  # launches ranks
@pytest.mark.parametrize("framework,train,form,word", CASES)
def test_planted_checkpoint_is_refused_and_runs_nothing(ranks, tmp_path, framework, train, form, word):
    ranks(1, train, [1]).check()  # a genuine epoch-0 checkpoint, which must not be silently resumed instead
    marker = tmp_path / "marker"
    data = torch_zip(payload(marker)) if form == "zip" else pickle.dumps(payload(marker), protocol=2)
    unpickle(data, form)  # the payload is live: the old way of loading does create the marker
    assert marker.exists()
    marker.unlink()
    plant(tmp_path / "ckpt", 1, data)
    before = {p.name: p.read_bytes() for p in (tmp_path / "ckpt").iterdir()}
    for n in (1, 2):  # 2 ranks: the root refuses and the other rank stops too, instead of waiting for it
        proc = ranks(n, train, [3])
        assert not marker.exists(), "loading the checkpoint ran its payload"
        refused(proc, n, f"`python -m hvdkit.{framework}.convert_checkpoint ckpt/epoch-0001.ckpt`", word)
    assert {p.name: p.read_bytes() for p in (tmp_path / "ckpt").iterdir()} == before, "nothing overwritten"


@pytest.mark.slow  # launches ranks
@pytest.mark.tensorflow
@pytest.mark.horovod
def test_older_tensorflow_checkpoint_converts_and_resumes(ranks, tmp_path):
    from hvdkit.common import npz_payload
    # One launch: the uninterrupted run (in "full"), then one stopped after 2 epochs of 3 (in "ckpt").
    straight = ranks(1, TF_TRAIN, ["3:full", 2]).check()
    # What hvdkit wrote before the npz format: the same payload, pickled. Resuming from it is refused with
    # the command below: test_planted_checkpoint_is_refused_and_runs_nothing[tensorflow-...] (same file).
    path = tmp_path / "ckpt" / "epoch-0001.ckpt"
    old = pickle.dumps(npz_payload.decode(path.read_bytes()), protocol=pickle.HIGHEST_PROTOCOL)
    plant(tmp_path / "ckpt", 1, old)
    command = "python -m hvdkit.tensorflow.convert_checkpoint ckpt/epoch-0001.ckpt"
    # The command as the error gives it, run where the job runs.
    proc = subprocess.run([sys.executable, *command.split()[1:]], capture_output=True, text=True, cwd=tmp_path,
                          timeout=120)
    assert proc.returncode == 0 and "converted ckpt/epoch-0001.ckpt" in proc.stdout, proc.stdout + proc.stderr
    assert (tmp_path / "ckpt" / "epoch-0001.ckpt.unsafe").read_bytes() == old
    resumed = ranks(1, TF_TRAIN, [3]).check()
    assert resumed.lines("START") == ["2"] and straight.lines("START") == ["0", "0"]
    (weight, note), (reference, _) = (r.lines("WEIGHT")[0].split(" NOTE ") for r in (resumed, straight))
    assert weight == reference, "resumed from the converted file: the uninterrupted run's weights"
    assert note == "('epoch', 1)", "the saved value, a tuple still"
