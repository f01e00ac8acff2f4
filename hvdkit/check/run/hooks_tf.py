"""TensorFlow / Keras 3 observation for `hvdkit check --run` (given the modules the script imported).

A step inside a tf.function cannot be watched from Python, so `tf.function` itself is wrapped: around
each call of a compiled function (the script's train_step, or Keras fit's train function) the
optimizers' iteration counters are read; when they moved, steps happened. Eager apply_gradients is
watched directly. Trainable Keras variables are nudged on ranks other than 0 when created (before any
broadcast): ranks seeded alike would otherwise start equal by luck and hide a missing broadcast.
"""
import functools
import weakref

NUDGE = 1e-3


def install(tf, keras, obs):
    state = {"variables": [], "optimizers": weakref.WeakSet(), "depth": 0, "batch": None}
    core = _import("keras.src.backend.tensorflow.core")
    base_opt = _import("keras.src.optimizers.base_optimizer").BaseOptimizer

    initialize = core.Variable._initialize

    def observed_initialize(self, value):
        if self.trainable and obs.rank and not obs.broadcast_seen() and "float" in str(self.dtype):
            dtype, shift = self.dtype, NUDGE * obs.rank
            if callable(value):  # Keras hands tf.Variable a deferred initializer
                value = (lambda init: lambda: tf.cast(init(), dtype) + shift)(value)
            else:
                value = tf.cast(tf.convert_to_tensor(value), dtype) + shift
        initialize(self, value)
        if self.trainable:
            state["variables"].append(weakref.ref(self))
    core.Variable._initialize = observed_initialize

    opt_init = base_opt.__init__

    def observed_opt_init(self, *a, **k):
        opt_init(self, *a, **k)
        state["optimizers"].add(self)
    base_opt.__init__ = observed_opt_init

    def weights():
        return [v.numpy().tobytes() for v in (r() for r in state["variables"]) if v is not None]
    obs.weights = weights
    # For --against's hooks: the live trainable variables in creation order, and the optimizers.
    obs.params = lambda: [v for v in (r() for r in state["variables"]) if v is not None]
    obs.optimizers = lambda: list(state["optimizers"])

    def iterations():
        return sum(int(o.iterations.numpy()) for o in list(state["optimizers"]))

    def lr():
        for o in list(state["optimizers"]):
            try:
                return float(o.learning_rate)
            except Exception:  # a schedule before the first step, or a non-numeric value: not worth failing for
                continue
        return None

    def around(call, args):
        """Run `call()` (a compiled function or an eager apply) and turn moved counters into steps."""
        if state["depth"] or not tf.executing_eagerly():
            return call()
        before = iterations()
        obs.before_step(lr=lr())
        batch = next((a for a in args if hasattr(a, "numpy") and hasattr(a, "dtype")), None)
        state["depth"] += 1
        try:
            out = call()
        finally:
            state["depth"] -= 1
        moved = iterations() - before
        if moved > 0:
            if batch is not None:
                obs.on_first_batch([batch.numpy().tobytes()])
            obs.after_step(moved)
        return out

    class Observed:
        def __init__(self, fn):
            self._fn = fn
            functools.update_wrapper(self, fn, updated=())

        def __call__(self, *a, **k):
            return around(lambda: self._fn(*a, **k), a)

        def __get__(self, obj, objtype=None):
            return self if obj is None else Observed(self._fn.__get__(obj, objtype))

        def __getattr__(self, name):
            return getattr(self._fn, name)

    function = tf.function

    def observed_function(*a, **k):
        made = function(*a, **k)
        if (a and callable(a[0])) or k.get("func") is not None:
            return Observed(made)
        return lambda fn: Observed(made(fn))
    tf.function = observed_function

    apply = base_opt.apply_gradients

    def observed_apply(self, grads_and_vars, *a, **k):
        return around(lambda: apply(self, grads_and_vars, *a, **k), ())
    base_opt.apply_gradients = observed_apply

    _watch_saves(tf, keras, obs)
    _watch_fit(tf, keras, obs)


def _watch_saves(tf, keras, obs):
    for owner, names in ((keras.Model, ("save", "save_weights")), (tf.train.Checkpoint, ("save", "write"))):
        for name in names:
            orig = getattr(owner, name)

            def observed(self, *a, _orig=orig, _name=name, **k):
                path = a[0] if a else k.get("filepath", k.get("file_prefix", "?"))
                obs.on_write(f"{owner.__name__}.{_name}", path)
                return _orig(self, *a, **k)
            setattr(owner, name, observed)


def _watch_fit(tf, keras, obs):
    fit = keras.Model.fit

    def observed_fit(self, *a, **k):
        x = a[0] if a else k.get("x")
        if obs.rec.first_batch is None and isinstance(x, tf.data.Dataset):
            first = next(iter(x.take(1)))
            first = first[0] if isinstance(first, (tuple, list)) else first
            obs.on_first_batch([first.numpy().tobytes()])
        return fit(self, *a, **k)
    keras.Model.fit = observed_fit


def _import(name):
    from importlib import import_module
    return import_module(name)
