"""TensorFlow / Keras 3 side of `--against`, in both runs (given the modules the script imported).

- Data: a tf.data iterator the script itself opens (`for x, y in ds`, `enumerate(ds.take(n))`, `iter(ds)`)
  hands each element to obs.on_yield (the recording run keeps it; the replaying run gets the ranks' union
  back). Keras `fit` draws its batches inside a compiled function: the data set `fit` would iterate is
  given its first --steps batches in front (the recording run draws them itself; the replaying run puts
  the unions there). Loops that draw batches inside a tf.function are not seen: nothing is recorded.
- Dropout and noise layers are the identity in both runs (their masks cannot be drawn again), and XLA is
  off in both (`tf.function(jit_compile=True)`, Keras `compile(jit_compile=...)`, whose "auto" means XLA,
  `tf.config.optimizer.set_jit`): its fused kernels round otherwise than the sequential run's.
- BatchNormalization in training mode: in the replaying run, the union is normalised rank part by rank
  part (obs.ghost), unless the Horovod script used SyncBatchNormalization.
- The loss: the scalar target of each GradientTape.gradient (Keras fit's train step takes one too).
- Teacher forcing, learning rates, optimizer state: tf_adapter.Adapter, which the observers call.
"""
import functools
import itertools
import os
import sys

from hvdkit.check.against.tf_adapter import Adapter, optimizer_built

NOISE_LAYERS = ("Dropout", "SpatialDropout1D", "SpatialDropout2D", "SpatialDropout3D", "GaussianDropout",
                "GaussianNoise", "AlphaDropout")


def install(tf, keras, obs):
    obs.fw = Adapter(tf, keras, obs)
    _data(tf, obs)
    _fit(tf, keras, obs)
    _noise_off(keras, obs)
    _xla_off(tf, keras, obs)
    _batch_norm(tf, keras, obs)
    _tape(tf, obs)
    optimizer_built(keras, obs)


HVDKIT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # hvdkit's package


def _from_script(obs):
    """Is the caller of the caller code of the script's own project (not a library: not Keras iterating
    fit's data, not hvdkit)? A virtualenv inside the project holds libraries, not the project."""
    path = os.path.abspath(sys._getframe(2).f_code.co_filename)
    return (path.startswith(os.path.dirname(obs.script) + os.sep) and not path.startswith(HVDKIT + os.sep)
            and "site-packages" not in path and "dist-packages" not in path)


def _data(tf, obs):
    from tensorflow.python.data.ops import dataset_ops
    cls = dataset_ops.DatasetV2
    real_iter = cls.__iter__
    serial = itertools.count(1)

    def observed_iter(self):
        it = real_iter(self)
        if not tf.executing_eagerly() or not _from_script(obs):
            return it
        return ObservedIterator(it, self, next(serial), obs)
    cls.__iter__ = observed_iter

    real_slices = cls.from_tensor_slices

    def observed_slices(tensors, name=None):
        ds = real_slices(tensors, name=name) if name else real_slices(tensors)
        if obs.keeps_sources and tf.executing_eagerly():
            from hvdkit.check.against import store
            try:
                obs.fw.source_rows.append(store.row_digests(obs.fw.to_numpy(tensors)))
            except (AttributeError, ValueError, TypeError):  # a structure of Python lists: not worth failing for
                pass
        return ds
    cls.from_tensor_slices = staticmethod(observed_slices)


class ObservedIterator:
    """A tf.data iterator the script opened: its elements go through obs.on_yield."""

    def __init__(self, it, dataset, serial, obs):
        self._it, self._obs = it, obs
        self._meta = {"iter": serial, "index": None, "pass_batches": _cardinality(dataset),
                      "universe": _universe(dataset), "shuffle_buffer": _shuffle_buffer(dataset)}

    def __iter__(self):
        return self

    def __next__(self):
        return self._obs.on_yield(next(self._it), dict(self._meta))

    def get_next(self):
        return self.__next__()

    def __getattr__(self, name):
        return getattr(self._it, name)


def _lineage(ds):
    """The data set and the ones it was made from, along its first inputs, down to the source."""
    out, seen = [], 0
    while ds is not None and seen < 200:
        out.append(ds)
        inputs = getattr(ds, "_inputs", lambda: [])()
        ds, seen = (inputs[0] if inputs else None), seen + 1
    return out


def _cardinality(ds):
    try:
        n = int(ds.cardinality())
    except Exception:  # a data set TF cannot count: unknown
        return None
    return n if n >= 0 else None


def _universe(ds):
    """Samples in the source the pipeline starts from (from_tensor_slices, range): None if unknown."""
    chain = _lineage(ds)
    return _cardinality(chain[-1]) if chain else None


def _shuffle_buffer(ds):
    for d in _lineage(ds):
        size = getattr(d, "_buffer_size", None)
        if size is not None and "Shuffle" in type(d).__name__:
            try:
                return int(size)
            except (TypeError, ValueError):
                return None
    return None


def _fit(tf, keras, obs):
    """Keras fit: the first --steps batches of the training data set are put in front of it."""
    from importlib import import_module
    adapters = import_module("keras.src.trainers.data_adapters")
    fitting = {"on": False}
    real_get = adapters.get_data_adapter

    def observed_get(*a, **k):
        adapter = real_get(*a, **k)
        if fitting["on"]:
            fitting["on"] = False  # only fit's training data; its validation data is left alone
            real_ds = adapter.get_tf_dataset
            made = {}

            def get_tf_dataset():
                if "ds" not in made:
                    made["ds"] = _in_front(tf, obs, real_ds())
                return made["ds"]
            adapter.get_tf_dataset = get_tf_dataset
        return adapter
    adapters.get_data_adapter = observed_get  # EpochIterator calls it through the module: fit's iterators too

    fit = keras.Model.fit

    @functools.wraps(fit)
    def observed_fit(self, *a, **k):
        fitting["on"] = True
        obs.fit = True
        try:
            return fit(self, *a, **k)
        finally:
            fitting["on"] = False
    keras.Model.fit = observed_fit


def _in_front(tf, obs, ds):
    meta = {"iter": 0, "index": None, "pass_batches": _cardinality(ds), "universe": _universe(ds),
            "shuffle_buffer": _shuffle_buffer(ds)}
    batches = obs.fit_batches(ds, meta)
    if not batches:
        return ds
    front = tf.data.Dataset.from_tensors(batches[0])
    for b in batches[1:]:
        front = front.concatenate(tf.data.Dataset.from_tensors(b))
    return front.concatenate(ds)


def _noise_off(keras, obs):
    for name in NOISE_LAYERS:
        cls = getattr(keras.layers, name, None)
        if cls is None:
            continue

        def identity(self, inputs, *a, _name=name, **k):
            obs.on_simulated_layer(f"keras.layers.{_name}")
            return inputs
        cls.call = identity


def _xla_off(tf, keras, obs):
    function = tf.function

    @functools.wraps(function)
    def without_xla(*a, **k):
        if k.get("jit_compile"):
            obs.on_simulated_layer("XLA (jit_compile)")
        k["jit_compile"] = False
        return function(*a, **k)
    tf.function = without_xla

    compile_ = keras.Model.compile

    @functools.wraps(compile_)
    def compile_without_xla(self, *a, **k):
        if k.get("jit_compile", "auto"):
            obs.on_simulated_layer("XLA (jit_compile)")
        k["jit_compile"] = False
        return compile_(self, *a, **k)
    keras.Model.compile = compile_without_xla
    tf.config.optimizer.set_jit = lambda enabled: obs.on_simulated_layer("XLA (tf.config.optimizer.set_jit)")


def _batch_norm(tf, keras, obs):
    """Ghost batch norm for BatchNormalization and every subclass (their own `call`, wrapped once per class
    when a first layer of it is made); calls nested inside a ghost call (a subclass's super().call) pass."""
    base = keras.layers.BatchNormalization
    init = base.__init__
    nested = {"on": False}

    def wrap(cls):
        real_call = cls.__dict__["call"]

        @functools.wraps(real_call)
        def call(self, inputs, training=None, mask=None):
            if "Sync" in type(self).__name__ or getattr(self, "synchronized", False):
                obs.fw.sync_bn = True
            ghost = obs.fw.vars.get("ghost")
            if nested["on"] or not (training and ghost is not None and obs.ghost and len(obs.ghost) > 1
                                    and mask is None):
                return real_call(self, inputs, training=training, mask=mask)
            n = len(obs.ghost)

            def split():
                parts = tf.split(inputs, ghost, num=n)
                momentum = self.momentum
                nested["on"] = True
                try:
                    out = [real_call(self, parts[0], training=training)]
                    self.momentum = 1.0  # rank 0's part alone moves the running statistics
                    out += [real_call(self, p, training=training) for p in parts[1:]]
                finally:
                    self.momentum, nested["on"] = momentum, False
                return tf.concat(out, axis=0)

            def whole():
                return real_call(self, inputs, training=training, mask=mask)
            if tf.executing_eagerly():
                return split() if int(tf.shape(inputs)[0]) == sum(obs.ghost) else whole()
            return tf.cond(tf.equal(tf.shape(inputs)[0], tf.reduce_sum(ghost)), split, whole)
        cls.call = call
        cls._hvdkit_ghost = cls

    def observed_init(self, *a, **k):
        init(self, *a, **k)
        for cls in type(self).__mro__:
            if "call" in cls.__dict__ and cls.__dict__.get("_hvdkit_ghost") is not cls and issubclass(cls, base):
                wrap(cls)
            if cls is base:
                break
    base.__init__ = observed_init


def _tape(tf, obs):
    cls = tf.GradientTape
    real_gradient = cls.gradient

    @functools.wraps(real_gradient)
    def gradient(self, target, sources, *a, **k):
        if hasattr(target, "shape") and target.shape.rank == 0 and target.dtype.is_floating:
            if tf.executing_eagerly():
                obs.fw.losses.append(float(target))
            elif "loss" in obs.fw.vars:
                obs.fw.vars["loss"].assign(tf.cast(target, tf.float32))
                obs.fw.vars["loss_set"].assign(True)
        return real_gradient(self, target, sources, *a, **k)
    cls.gradient = gradient

    real_enter = cls.__enter__

    @functools.wraps(real_enter)
    def enter(self):
        if tf.executing_eagerly():
            obs.on_training_forward()
        return real_enter(self)
    cls.__enter__ = enter

