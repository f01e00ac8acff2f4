"""Very small gin look-alike: `@configurable` functions take keyword defaults from bindings."""
import ast
import functools
import inspect

_BINDINGS = {}
_REGISTRY = {}


def configurable(fn):
    name = fn.__name__
    sig = inspect.signature(fn)

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        bound = {k.split(".", 1)[1]: v for k, v in _BINDINGS.items()
                 if k.split(".", 1)[0] == name and k.split(".", 1)[1] in sig.parameters}
        bound.update(kwargs)
        return fn(*args, **bound)
    _REGISTRY[name] = wrapper
    return wrapper


def get_configurable(name):
    return _REGISTRY[name]


def bind(key, value):
    _BINDINGS[key] = value


def _parse_line(line):
    line = line.split("#", 1)[0].strip()
    if not line:
        return
    key, value = line.split("=", 1)
    bind(key.strip(), ast.literal_eval(value.strip()))


def parse_config_files_and_bindings(files, bindings):
    for path in files:
        with open(path) as f:
            for line in f:
                _parse_line(line)
    for b in bindings:
        _parse_line(b)


def config_str():
    return "\n".join("%s = %r" % kv for kv in sorted(_BINDINGS.items()))
