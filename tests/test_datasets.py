"""IDX and npz readers, the data-set search and torchvision's staged layout, on small files made here, plus the
real Fashion-MNIST."""
import gzip
import os

import numpy as np
import pytest

from hvdkit.data import datasets, idx, torchvision_layout
from hvdkit.data.datasets import DataError

FASHION_DIR = "/usr/share/datasets/fashion-mnist"


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    """No real data in sight unless a test puts it there: HVDKIT_DATA unset, Keras cache and Debian dir empty."""
    monkeypatch.delenv("HVDKIT_DATA", raising=False)
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "keras-home"))
    monkeypatch.setattr(datasets, "_SYSTEM_DIRS", {"fashion-mnist": (str(tmp_path / "system-fashion"),)})


def _one_line(exc):
    message = str(exc.value)
    assert "\n" not in message and message.strip() == message
    return message


def _fake_set(n_train=12, n_test=5, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.integers(0, 256, (n_train, 28, 28), dtype=np.uint8), rng.integers(0, 10, n_train).astype(np.uint8),
            rng.integers(0, 256, (n_test, 28, 28), dtype=np.uint8), rng.integers(0, 10, n_test).astype(np.uint8))


def _write_idx_set(directory, arrays, gz=True):
    os.makedirs(directory, exist_ok=True)
    for key, array in zip(datasets.IDX_FILES, arrays):
        idx.write_idx(os.path.join(directory, datasets.IDX_FILES[key] + (".gz" if gz else "")), array)


def _assert_loaded(got, arrays):
    assert len(got) == 4
    for g, a in zip(got, arrays):
        np.testing.assert_array_equal(g, a)
    assert got[0].dtype == np.uint8 and got[1].dtype == np.int64


# ---- IDX ----

@pytest.mark.parametrize("dtype", ["uint8", "int8", ">i2", ">i4", ">f4", ">f8", "<i4", "<f8"])
@pytest.mark.parametrize("gz", [False, True])
def test_idx_roundtrip_every_type_code(tmp_path, dtype, gz):
    rng = np.random.default_rng(1)
    array = (rng.standard_normal((3, 4, 5)) * 100).astype(dtype)
    path = tmp_path / ("a.idx" + (".gz" if gz else ""))
    idx.write_idx(path, array)
    got = idx.read_idx(path)
    assert got.shape == (3, 4, 5) and got.dtype.kind == array.dtype.kind and got.dtype.isnative
    np.testing.assert_array_equal(got, array)


def test_idx_header_is_big_endian_and_gzip_is_detected_by_content(tmp_path):
    # Build the bytes by hand (not with write_idx): magic 00 00 0c 02, dims 2 and 3 big-endian, int32 data.
    data = bytes([0, 0, 0x0C, 2, 0, 0, 0, 2, 0, 0, 0, 3]) + np.arange(6, dtype=">i4").tobytes()
    path = tmp_path / "no-gz-suffix"
    path.write_bytes(gzip.compress(data))
    np.testing.assert_array_equal(idx.read_idx(path), np.arange(6).reshape(2, 3))
    np.testing.assert_array_equal(idx.parse_idx(data), np.arange(6).reshape(2, 3))


@pytest.mark.parametrize("gz", [False, True])
@pytest.mark.parametrize("damage,expect", [
    (lambda b: b[:-7], "truncated: header says 4x28x28 uint8 = 3136 data bytes, file has 3129"),
    (lambda b: b + b"\0\0", "has trailing bytes"),
    (lambda b: b"PK\x03\x04" + b[4:], "not an IDX file (magic number 504b0304"),
    (lambda b: b[:2] + b"\x07" + b[3:], "not an IDX file (magic number 00000703"),
    (lambda b: b[:9], "truncated IDX header (9 bytes, the 3 dimensions need 16)"),
    (lambda b: b[:3], "shorter than the 4-byte magic number"),
])
def test_damaged_idx_is_one_clear_line_naming_the_file(tmp_path, gz, damage, expect):
    raw = bytes([0, 0, 8, 3, 0, 0, 0, 4, 0, 0, 0, 28, 0, 0, 0, 28]) + bytes(4 * 28 * 28)
    path = tmp_path / "train-images-idx3-ubyte"
    bad = damage(raw)
    path.write_bytes(gzip.compress(bad) if gz else bad)
    with pytest.raises(DataError) as exc:
        idx.read_idx(path)
    message = _one_line(exc)
    assert message.startswith(str(path) + ": ") and expect in message


def test_cut_gzip_download_says_so(tmp_path):
    path = tmp_path / "t10k-labels-idx1-ubyte.gz"
    idx.write_idx(path, np.arange(5000, dtype=np.uint8) % 10)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(DataError) as exc:
        idx.read_idx(path)
    message = _one_line(exc)
    assert message.startswith(str(path)) and "damaged gzip data" in message and "fetch the file again" in message


def test_missing_file_is_a_data_error(tmp_path):
    with pytest.raises(DataError, match="cannot read"):
        idx.read_idx(tmp_path / "nope")


# ---- npz ----

def _write_npz(path, arrays, keys=idx.NPZ_KEYS):
    np.savez_compressed(path, **dict(zip(keys, arrays)))


def test_npz_roundtrip(tmp_path):
    arrays = _fake_set()
    _write_npz(tmp_path / "mnist.npz", arrays)
    for g, a in zip(idx.read_npz(tmp_path / "mnist.npz"), arrays):
        np.testing.assert_array_equal(g, a)


@pytest.mark.parametrize("damage,expect", [
    (lambda b: b[: len(b) // 2], "not a readable .npz file"),
    (lambda b: b[:200] + bytes(len(b) - 400) + b[-200:], "not a readable .npz file"),
    (lambda b: b"\x89PNG\r\n\x1a\n" + b[8:], "not a readable .npz file"),
    (lambda b: b"", "not a readable .npz file"),
])
def test_damaged_npz_is_one_clear_line(tmp_path, damage, expect):
    path = tmp_path / "mnist.npz"
    _write_npz(path, _fake_set(200, 50))
    path.write_bytes(damage(path.read_bytes()))
    with pytest.raises(DataError) as exc:
        idx.read_npz(path)
    message = _one_line(exc)
    assert message.startswith(str(path) + ": ") and expect in message


def test_npz_without_the_keras_keys_names_them(tmp_path):
    path = tmp_path / "mnist.npz"
    _write_npz(path, _fake_set()[:2], keys=("x_train", "y_train"))
    with pytest.raises(DataError) as exc:
        idx.read_npz(path)
    assert "no x_test, y_test in it (it has x_train, y_train)" in _one_line(exc)


def test_npy_instead_of_npz(tmp_path):
    path = tmp_path / "mnist.npz"
    with open(path, "wb") as f:
        np.save(f, np.zeros(3))
    with pytest.raises(DataError, match="single .npy array"):
        idx.read_npz(path)


# ---- search and load ----

def test_load_from_data_dir_subdirectory_plain_and_gz(tmp_path):
    arrays = _fake_set()
    _write_idx_set(tmp_path / "data" / "mnist", arrays, gz=True)
    _write_idx_set(tmp_path / "data" / "FashionMNIST" / "raw", _fake_set(seed=2), gz=False)
    _assert_loaded(datasets.load("mnist", tmp_path / "data"), arrays)
    _assert_loaded(datasets.load("fashion-mnist", tmp_path / "data"), _fake_set(seed=2))


def test_data_dir_itself_and_kaggle_names(tmp_path):
    arrays = _fake_set()
    _write_idx_set(tmp_path, arrays, gz=False)
    for base in datasets.IDX_FILES.values():  # Kaggle spells them train-images.idx3-ubyte
        os.rename(tmp_path / base, tmp_path / base.replace("-idx", ".idx"))
    _assert_loaded(datasets.load("mnist", tmp_path), arrays)


def test_search_order_data_dir_then_env_then_keras_cache(tmp_path, monkeypatch):
    first, second, third = _fake_set(seed=1), _fake_set(seed=2), _fake_set(seed=3)
    _write_idx_set(tmp_path / "cli" / "mnist", first)
    _write_idx_set(tmp_path / "env" / "MNIST" / "raw", second)
    os.makedirs(tmp_path / "keras-home" / "datasets")
    _write_npz(tmp_path / "keras-home" / "datasets" / "mnist.npz", third)
    _assert_loaded(datasets.load("mnist"), third)
    monkeypatch.setenv("HVDKIT_DATA", str(tmp_path / "env"))
    _assert_loaded(datasets.load("mnist"), second)
    _assert_loaded(datasets.load("mnist", tmp_path / "cli"), first)
    assert datasets.available(tmp_path / "cli")["mnist"] == str(tmp_path / "cli" / "mnist")
    assert datasets.available()["mnist"] == str(tmp_path / "env" / "MNIST" / "raw")


def test_keras_fashion_cache_layout(tmp_path):
    arrays = _fake_set()
    _write_idx_set(tmp_path / "keras-home" / "datasets" / "fashion-mnist", arrays)
    _assert_loaded(datasets.load("fashion-mnist"), arrays)
    fashion = str(tmp_path / "keras-home" / "datasets" / "fashion-mnist")
    assert datasets.available() == {"mnist": None, "fashion-mnist": fashion}


def test_nothing_found_names_every_place_and_how_to_get_it(tmp_path):
    with pytest.raises(DataError) as exc:
        datasets.load("mnist", tmp_path)
    message = _one_line(exc)
    assert f"--data-dir {tmp_path} (and its mnist/, MNIST/, MNIST/raw/)" in message
    assert "$HVDKIT_DATA (not set)" in message
    assert f"Keras cache {tmp_path}/keras-home/datasets" in message
    assert datasets.HOW_TO_GET["mnist"] in message
    assert "--dataset fashion-mnist" not in message  # not installed in this test's world


def test_missing_mnist_points_to_installed_fashion_mnist(tmp_path):
    _write_idx_set(tmp_path / "system-fashion", _fake_set())
    with pytest.raises(DataError) as exc:
        datasets.load("mnist")
    assert _one_line(exc).endswith("Or train on Fashion-MNIST, which is installed here: --dataset fashion-mnist")
    with pytest.raises(DataError) as exc:
        datasets.load("fashion-mnist", tmp_path / "elsewhere-typo")
    assert "--data-dir" in _one_line(exc) and "is not a directory" in str(exc.value)


def test_partial_idx_set_names_the_missing_files(tmp_path):
    _write_idx_set(tmp_path / "mnist", _fake_set())
    os.unlink(tmp_path / "mnist" / "t10k-labels-idx1-ubyte.gz")
    with pytest.raises(DataError) as exc:
        datasets.load("mnist", tmp_path)
    assert "has only part of MNIST: t10k-labels-idx1-ubyte[.gz] missing" in _one_line(exc)


def test_damaged_file_in_the_first_place_is_reported_not_skipped(tmp_path, monkeypatch):
    _write_idx_set(tmp_path / "good" / "mnist", _fake_set())
    monkeypatch.setenv("HVDKIT_DATA", str(tmp_path / "good"))
    _write_idx_set(tmp_path / "bad" / "mnist", _fake_set())
    bad = tmp_path / "bad" / "mnist" / "train-images-idx3-ubyte.gz"
    bad.write_bytes(bad.read_bytes()[:-20])
    with pytest.raises(DataError) as exc:
        datasets.load("mnist", tmp_path / "bad")
    assert _one_line(exc).startswith(str(bad))


@pytest.mark.parametrize("arrays,expect", [
    ((np.zeros((3, 28, 27), np.uint8), np.zeros(3, np.uint8)), "images must be uint8 N x 28 x 28, got uint8 3x28x27"),
    ((np.zeros((3, 28, 28), np.float32), np.zeros(3, np.uint8)), "got float32 3x28x28"),
    ((np.zeros((3, 28, 28), np.uint8), np.zeros(4, np.uint8)), "3 images need 3 labels"),
    ((np.zeros((3, 28, 28), np.uint8), np.array([0, 10, 1], np.uint8)), "labels must be 0-9, got 0..10"),
])
def test_wrong_shapes_and_labels(tmp_path, arrays, expect):
    _write_npz(tmp_path / "mnist.npz", arrays + arrays)
    with pytest.raises(DataError) as exc:
        datasets.load("mnist", tmp_path)
    assert expect in _one_line(exc)


def test_unknown_name():
    with pytest.raises(DataError, match="unknown data set 'cifar10': use one of mnist, fashion-mnist"):
        datasets.load("cifar10")


# ---- torchvision's layout (hvdkit data torch-mnist) ----

def _plain_idx(path, offset):
    """An uncompressed IDX file's payload, read without hvdkit: header skipped."""
    return np.frombuffer(open(path, "rb").read(), np.uint8, offset=offset)


def test_torch_staging_writes_torchvisions_names_and_marks_the_standin(tmp_path):
    fake = _fake_set()
    _write_idx_set(tmp_path / "system-fashion", fake, gz=True)
    torchvision_layout.stage(tmp_path / "root", quiet=True)
    for sub in ("MNIST", "FashionMNIST"):
        raw = tmp_path / "root" / sub / "raw"
        images = raw / "train-images-idx3-ubyte"
        assert images.read_bytes()[:16] == bytes([0, 0, 8, 3, 0, 0, 0, 12, 0, 0, 0, 28, 0, 0, 0, 28])
        np.testing.assert_array_equal(_plain_idx(images, 16).reshape(12, 28, 28), fake[0])
        np.testing.assert_array_equal(_plain_idx(raw / "t10k-labels-idx1-ubyte", 8), fake[3])
        assert not list(raw.glob("*.gz"))  # torchvision reads only the uncompressed names
    assert (tmp_path / "root" / "MNIST" / "raw" / "hvdkit-standin.txt").read_text().startswith(
        "Fashion-MNIST (clothing images, 10 classes) standing in for MNIST")
    assert not (tmp_path / "root" / "FashionMNIST" / "raw" / "hvdkit-standin.txt").exists()
    assert torchvision_layout.state(tmp_path / "root") == {"mnist": "stand-in", "fashion-mnist": "files"}
    with pytest.warns(UserWarning, match="Fashion-MNIST stand-in .hvdkit data torch-mnist., not MNIST"):
        _assert_loaded(datasets.load("mnist", tmp_path / "root"), fake)


def test_torch_staging_leaves_other_files_alone_unless_forced(tmp_path):
    _write_idx_set(tmp_path / "system-fashion", _fake_set())
    real = tmp_path / "root" / "MNIST" / "raw"
    _write_idx_set(real, _fake_set(seed=5), gz=False)
    before = {p.name: p.read_bytes() for p in real.iterdir()}
    with pytest.raises(DataError) as exc:
        torchvision_layout.stage(tmp_path / "root", quiet=True)
    assert "perhaps real MNIST" in _one_line(exc) and "--force" in str(exc.value)
    assert {p.name: p.read_bytes() for p in real.iterdir()} == before
    assert torchvision_layout.state(tmp_path / "root")["mnist"] == "files"
    torchvision_layout.stage(tmp_path / "root", force=True, quiet=True)
    assert torchvision_layout.state(tmp_path / "root")["mnist"] == "stand-in"
    _assert_loaded(datasets.load("fashion-mnist", tmp_path / "root"), _fake_set())
    # Other data under FashionMNIST/raw is refused too; the same data is taken as it is.
    idx.write_idx(tmp_path / "root" / "FashionMNIST" / "raw" / "t10k-labels-idx1-ubyte", np.zeros(5, np.uint8))
    with pytest.raises(DataError, match="other data than Fashion-MNIST's"):
        torchvision_layout.stage(tmp_path / "root", quiet=True)


def test_torch_staging_again_rewrites_nothing(tmp_path):
    _write_idx_set(tmp_path / "system-fashion", _fake_set())
    torchvision_layout.stage(tmp_path / "root", quiet=True)
    files = list((tmp_path / "root").glob("*/raw/*-ubyte"))
    stamps = {p: p.stat().st_mtime_ns for p in files}
    torchvision_layout.stage(tmp_path / "root", quiet=True)
    assert len(files) == 8 and {p: p.stat().st_mtime_ns for p in files} == stamps


def test_torch_staging_root_default_and_errors(tmp_path, monkeypatch, capsys):
    from hvdkit.cli import main
    monkeypatch.chdir(tmp_path)
    assert torchvision_layout.resolve_root() == str(tmp_path / "data")
    monkeypatch.setenv("HVDKIT_DATA", str(tmp_path / "shared"))
    assert torchvision_layout.resolve_root() == str(tmp_path / "shared")
    with pytest.raises(DataError) as exc:  # no Fashion-MNIST anywhere in this test's world
        torchvision_layout.stage(tmp_path / "root", quiet=True)
    assert datasets.HOW_TO_GET["fashion-mnist"] in _one_line(exc)
    _write_idx_set(tmp_path / "system-fashion", _fake_set())
    (tmp_path / "a-file").write_text("")
    assert main(["data", "torch-mnist", "--root", str(tmp_path / "a-file")]) == 2
    err = capsys.readouterr().err
    assert err == f"hvdkit data: error: --root {tmp_path / 'a-file'} is a file: give a directory (it is created " \
                  "if missing)\n"
    assert torchvision_layout.state(tmp_path / "a-file") == {"mnist": None, "fashion-mnist": None}


# ---- the real thing ----

@pytest.mark.skipif(not os.path.isdir(FASHION_DIR), reason="Debian package dataset-fashion-mnist not installed")
def test_real_fashion_mnist_from_the_debian_package(monkeypatch):
    monkeypatch.setattr(datasets, "_SYSTEM_DIRS", {"fashion-mnist": (FASHION_DIR,)})
    x_train, y_train, x_test, y_test = datasets.load("fashion-mnist")
    assert x_train.shape == (60000, 28, 28) and x_test.shape == (10000, 28, 28)
    assert x_train.dtype == np.uint8 and y_train.dtype == np.int64
    # Fashion-MNIST is balanced: 6000 training and 1000 test images per class.
    assert np.bincount(y_train).tolist() == [6000] * 10 and np.bincount(y_test).tolist() == [1000] * 10
    assert 0 < x_train.mean() < 255 and x_train.max() == 255
    assert datasets.available()["fashion-mnist"] == FASHION_DIR
