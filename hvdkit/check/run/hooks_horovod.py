"""Wrappers around Horovod's module functions: did init run, which broadcasts ran and when.

Horovod's Keras callbacks broadcast through horovod.tensorflow's module functions, so they are seen
too. Applied to a Horovod framework module (horovod.torch, horovod.tensorflow, horovod.tensorflow.keras,
horovod.keras) right after it is imported, before the script binds any of its names.
"""
import functools

BROADCASTS = ("broadcast_parameters", "broadcast_optimizer_state", "broadcast_variables",
              "broadcast_global_variables", "broadcast_object", "broadcast", "broadcast_")


def patch(module, obs, before_broadcast=None):
    """Wrap `module`'s init and broadcasts; `before_broadcast(name, args)` runs first (the hooks perturb there)."""
    if getattr(module, "_hvdkit_check", False):
        return
    module._hvdkit_check = True
    init = getattr(module, "init", None)
    if init is not None:
        @functools.wraps(init)
        def init_observed(*a, **k):
            out = init(*a, **k)
            obs.on_init(module.size())
            return out
        module.init = init_observed
    for name in BROADCASTS:
        fn = getattr(module, name, None)
        if fn is None:
            continue
        module.__dict__[name] = _wrap_broadcast(fn, name, obs, before_broadcast)


def _wrap_broadcast(fn, name, obs, before):
    @functools.wraps(fn)
    def observed(*a, **k):
        if before is not None:
            before(name, a, k)
        obs.on_broadcast(name)
        outer, obs.in_broadcast = obs.in_broadcast, True
        try:
            return fn(*a, **k)
        finally:
            obs.in_broadcast = outer
    return observed
