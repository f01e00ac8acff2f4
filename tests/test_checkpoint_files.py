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
