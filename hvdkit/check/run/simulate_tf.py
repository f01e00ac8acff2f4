"""TensorFlow / Keras code meant for GPUs and downloads, run on this machine under `hvdkit check --run`.

On a machine without a GPU, `gpus = tf.config.list_physical_devices('GPU')` is empty and a script that
pins with `tf.config.set_visible_devices(gpus[hvd.local_rank()], 'GPU')` dies with an IndexError before
any step could be observed. Here the list holds one simulated GPU per local rank; pinning, memory growth
and device configuration calls given a simulated GPU do nothing, and the rank runs on the CPU. Keras's
dataset downloads (keras.datasets.*.load_data) return small synthetic arrays of the real shapes and
dtypes, and keras.applications models asked for ImageNet weights are built with random ones (the same
shapes, no download). Every substitution is recorded (obs.on_simulated) and said in the report.
"""
import functools
import inspect
import pkgutil
import sys
from importlib import import_module

import numpy as np

from hvdkit.check.run.observer import local_size

SAMPLES = (2048, 512)  # train, test: enough for a few steps of any batch size per rank a script picks
SEED = 1234            # the same arrays on every rank, as a real download gives

# name -> (x shape per sample, x dtype, y shape per sample, y dtype, classes or None for a real target)
IMAGE_SETS = {
    "mnist": ((28, 28), "uint8", (), "uint8", 10),
    "fashion_mnist": ((28, 28), "uint8", (), "uint8", 10),
    "cifar10": ((32, 32, 3), "uint8", (1,), "uint8", 10),
    "cifar100": ((32, 32, 3), "uint8", (1,), "int64", 100),
    "boston_housing": ((13,), "float64", (), "float64", None),
    "california_housing": ((8,), "float32", (), "float32", None),
}
SEQUENCE_SETS = {"imdb": 2, "reuters": 46}  # classes; x is an object array of int lists


def install(tf, keras, obs):
    _simulated_gpus(tf, obs)
    _datasets(obs)
    _applications(obs)


def _simulated_gpus(tf, obs):
    config = tf.config
    if config.list_physical_devices("GPU"):
        return  # a real GPU: nothing to simulate
    fakes = [config.PhysicalDevice(name=f"/physical_device:GPU:{i}", device_type="GPU")
             for i in range(local_size(obs))]

    def is_fake(devices):
        # PhysicalDevice is a namedtuple: one device is not a list of them.
        devices = [devices] if isinstance(devices, config.PhysicalDevice) or not isinstance(devices, (list, tuple)) \
            else devices
        return any(d in fakes for d in devices)

    def listing(real):
        @functools.wraps(real)
        def list_devices(device_type=None):
            if device_type is not None and str(device_type).upper() == "GPU":
                obs.on_simulated(f"list_physical_devices('GPU') answered with {len(fakes)} simulated GPU(s): "
                                 "the rank runs on the CPU")
                return list(fakes)
            return real(device_type)
        return list_devices

    def ignoring(real, what):
        @functools.wraps(real)
        def call(device, *a, **k):
            if is_fake(device):
                obs.on_simulated(f"{what} on a simulated GPU did nothing")
                return None
            return real(device, *a, **k)
        return call

    for ns in (config, config.experimental):
        if hasattr(ns, "list_physical_devices"):
            ns.list_physical_devices = listing(ns.list_physical_devices)
        for name in ("set_visible_devices", "set_memory_growth", "set_logical_device_configuration",
                     "set_virtual_device_configuration"):
            if hasattr(ns, name):
                setattr(ns, name, ignoring(getattr(ns, name), name))


def _synthetic_images(spec):
    x_shape, x_dtype, y_shape, y_dtype, classes = spec
    rng = np.random.default_rng(SEED)

    def part(n):
        if np.dtype(x_dtype).kind == "u":
            x = rng.integers(0, 256, size=(n, *x_shape), dtype=x_dtype)
        else:
            x = rng.standard_normal((n, *x_shape)).astype(x_dtype)
        if classes:
            y = rng.integers(0, classes, size=(n, *y_shape)).astype(y_dtype)
        else:
            y = rng.standard_normal((n, *y_shape)).astype(y_dtype)
        return x, y
    return part(SAMPLES[0]), part(SAMPLES[1])


def _synthetic_sequences(classes, num_words=None, maxlen=None, **_):
    rng = np.random.default_rng(SEED)
    top = num_words or 10000

    def part(n):
        lengths = rng.integers(10, maxlen or 200, size=n)
        x = np.empty(n, dtype=object)
        for i, k in enumerate(lengths):
            x[i] = [1] + rng.integers(2, top, size=k - 1).tolist()
        return x, rng.integers(0, classes, size=n).astype("int64")
    return part(SAMPLES[0]), part(SAMPLES[1])


def _datasets(obs):
    for name, spec in {**IMAGE_SETS, **{k: None for k in SEQUENCE_SETS}}.items():
        try:
            source = import_module(f"keras.src.datasets.{name}")
        except ImportError:
            continue

        def load_data(*a, _name=name, _spec=spec, **k):
            obs.on_simulated(f"keras.datasets.{_name}.load_data() returned synthetic arrays of the real shapes "
                             f"({SAMPLES[0]} train, {SAMPLES[1]} test samples): no download")
            if _spec is None:
                return _synthetic_sequences(SEQUENCE_SETS[_name], **k)
            return _synthetic_images(_spec)
        _replace(source, "load_data", load_data)


def _replace(source, name, new):
    """Put `new` in place of source.name, and wherever Keras's API modules (keras.datasets.mnist, tf.keras's
    copy, keras.applications) already bound the original; modules imported later take it from `source`."""
    old = getattr(source, name)
    setattr(source, name, new)
    for mod_name, mod in list(sys.modules.items()):
        if mod_name.startswith("keras") and getattr(mod, name, None) is old:
            setattr(mod, name, new)


def _applications(obs):
    """keras.applications.X(weights='imagenet') (the default) would download: built with random weights."""
    package = import_module("keras.src.applications")
    for info in pkgutil.iter_modules(package.__path__):
        if info.name.endswith("_test") or info.name == "imagenet_utils":
            continue
        module = import_module(f"keras.src.applications.{info.name}")
        for name, fn in list(vars(module).items()):
            if name[:1].isupper() and inspect.isfunction(fn) and "weights" in inspect.signature(fn).parameters:
                _replace(module, name, _without_download(fn, name, obs))


def _without_download(fn, name, obs):
    params = list(inspect.signature(fn).parameters)

    @functools.wraps(fn)
    def build(*a, **k):
        at = params.index("weights")
        weights = a[at] if len(a) > at else k.get("weights", "imagenet")
        if isinstance(weights, str) and weights == "imagenet":
            obs.on_simulated(f"keras.applications.{name}(weights='imagenet') built with random weights: no download")
            if len(a) > at:
                a = a[:at] + (None,) + a[at + 1:]
            else:
                k["weights"] = None
        return fn(*a, **k)
    return build
