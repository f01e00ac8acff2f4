"""Checkpoint files on disk: atomic, rotated, checksummed, and damaged ones skipped for the previous."""
import os

import pytest

from hvdkit.common.checkpoint import CheckpointFiles


def test_rotation_keeps_newest(tmp_path):
    files = CheckpointFiles(tmp_path, keep=2)
    for epoch in range(5):
        files.write(epoch, f"state {epoch}".encode())
    assert files.epochs() == [4, 3]
    assert sorted(os.listdir(tmp_path)) == ["epoch-0003.ckpt", "epoch-0003.ckpt.sha256",
                                            "epoch-0004.ckpt", "epoch-0004.ckpt.sha256"]
    assert files.latest(bytes.decode) == ("state 4", files.path(4))


@pytest.mark.parametrize("damage", ["truncate", "flip", "no-checksum", "undecodable"])
def test_damaged_newest_falls_back_with_warning(tmp_path, damage):
    files = CheckpointFiles(tmp_path, keep=3)
    files.write(1, b"good one")
    files.write(2, b"newer but damaged" if damage != "undecodable" else b"\xff\xfe")
    path = files.path(2)
    if damage == "truncate":
        with open(path, "r+b") as f:
            f.truncate(5)
    elif damage == "flip":
        data = bytearray(open(path, "rb").read())
        data[0] ^= 0xFF
        open(path, "wb").write(bytes(data))
    elif damage == "no-checksum":
        os.unlink(path + ".sha256")
    with pytest.warns(UserWarning, match="epoch-0002"):
        assert files.latest(bytes.decode) == ("good one", files.path(1))


def test_nothing_saved(tmp_path):
    assert CheckpointFiles(tmp_path / "missing").latest(bytes.decode) == (None, None)


def test_no_temp_files_left(tmp_path):
    files = CheckpointFiles(tmp_path)
    files.write(0, b"x" * 1000)
    assert not [n for n in os.listdir(tmp_path) if n.startswith(".tmp")]


def test_bad_arguments(tmp_path):
    with pytest.raises(ValueError, match="keep must be >= 1"):
        CheckpointFiles(tmp_path, keep=0)
    with pytest.raises(ValueError, match="epoch must be >= 0"):
        CheckpointFiles(tmp_path).write(-1, b"")


def test_a_file_only_pickle_could_read_is_refused_not_skipped(tmp_path):
    from hvdkit.common.checkpoint import CheckpointError, UnsafeCheckpointError
    files = CheckpointFiles(tmp_path)
    files.write(1, b"good one")
    files.write(2, b"pickle")

    def decode(data):
        if data == b"pickle":
            raise UnsafeCheckpointError("is a pickle", "python -m convert")
        return data.decode()
    with pytest.raises(CheckpointError, match=r"epoch-0002.ckpt is a pickle, .*`python -m convert .*epoch-0002.ckpt`"):
        files.latest(decode)


def test_npz_payload_round_trip_keeps_types_and_runs_no_pickle():
    import numpy as np
    from hvdkit.common import npz_payload
    payload = {"epoch": 3, "objects": {
        "model": {"kind": "variables", "arrays": [np.arange(6, dtype=np.float32).reshape(2, 3), np.int64(7)],
                  "paths": ["dense/kernel", "iterations"]},
        "note": {"kind": "value", "value": {1: ("a", None, True), "__array__": [1.5, float("inf")], "s": "x"}}}}
    back = npz_payload.decode(npz_payload.encode(payload))
    arrays = back["objects"]["model"]["arrays"]
    assert arrays[0].dtype == np.float32 and arrays[0].tolist() == [[0, 1, 2], [3, 4, 5]]
    assert type(arrays[1]) is np.int64 and arrays[1] == 7
    assert back["objects"]["note"] == payload["objects"]["note"]  # int key, tuple, tag-like key
    for bad, where in ((object(), "builtins.object"), (np.array([None]), "array of Python objects")):
        with pytest.raises(npz_payload.UnsupportedValue, match=where):
            npz_payload.encode({"x": bad})


def test_convert_rewrites_a_trusted_file_and_keeps_the_original(tmp_path):
    from hvdkit.common.checkpoint import CheckpointError, convert_file
    files = CheckpointFiles(tmp_path)
    path = files.write(0, b"old format")
    convert_file(path, lambda data: data.decode(), lambda payload: payload.upper().encode())
    assert open(path, "rb").read() == b"OLD FORMAT" and open(path + ".unsafe", "rb").read() == b"old format"
    assert files.latest(bytes.decode) == ("OLD FORMAT", path), "the new checksum matches the new file"
    assert files.epochs() == [0], "the kept original is not taken for a checkpoint"
    with open(path, "ab") as f:
        f.write(b"!")
    with pytest.raises(CheckpointError, match="does not match"):
        convert_file(path, lambda data: data.decode(), lambda payload: payload.encode())
