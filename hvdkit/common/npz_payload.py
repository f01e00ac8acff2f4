"""A checkpoint payload as arrays + JSON in one .npz file, so that loading it runs no code.

pickle rebuilds objects by calling whatever the file names, so a crafted checkpoint would run code on
every rank that resumes. Here the arrays are .npy members read with allow_pickle=False (an object array,
npy's one path to pickle, is refused) and everything else is one JSON member, from which json builds only
dicts, lists, strings, numbers, booleans and None. In the JSON, {"__array__": i} stands for array i,
{"__tuple__": [...]} for a tuple and {"__items__": [[k, v], ...]} for a dict whose keys are not all
plain strings, so the payload comes back with the types it was saved with.
"""
import io
import json

import numpy as np

_JSON = "__payload__"
_TAGS = ("__array__", "__tuple__", "__items__")


class UnsupportedValue(TypeError):
    pass


def _encode(obj, arrays, where):
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, (np.ndarray, np.generic)):
        if np.asarray(obj).dtype.hasobject:
            raise UnsupportedValue(f"{where} is an array of Python objects")
        arrays.append(np.asarray(obj))
        return {"__array__": len(arrays) - 1, "scalar": isinstance(obj, np.generic)}
    if isinstance(obj, (list, tuple)):
        items = [_encode(v, arrays, f"{where}[{i}]") for i, v in enumerate(obj)]
        return {"__tuple__": items} if isinstance(obj, tuple) else items
    if isinstance(obj, dict):
        if all(isinstance(k, str) and k not in _TAGS for k in obj):
            return {k: _encode(v, arrays, f"{where}[{k!r}]") for k, v in obj.items()}
        return {"__items__": [[_encode(k, arrays, f"{where} key"), _encode(v, arrays, f"{where}[{k!r}]")]
                              for k, v in obj.items()]}
    raise UnsupportedValue(f"{where} is a {type(obj).__module__}.{type(obj).__qualname__}")


def _decode(obj, arrays):
    if isinstance(obj, list):
        return [_decode(v, arrays) for v in obj]
    if not isinstance(obj, dict):
        return obj
    if "__array__" in obj:
        a = arrays[obj["__array__"]]
        return a[()] if obj.get("scalar") else a
    if "__tuple__" in obj:
        return tuple(_decode(v, arrays) for v in obj["__tuple__"])
    if "__items__" in obj:
        return {_hashable(_decode(k, arrays)): _decode(v, arrays) for k, v in obj["__items__"]}
    return {k: _decode(v, arrays) for k, v in obj.items()}


def _hashable(key):
    return key.item() if isinstance(key, np.generic) else key


def encode(payload, what="the payload"):
    """bytes of an .npz holding `payload` (arrays, numpy scalars and plain Python data), or UnsupportedValue."""
    arrays = []
    tree = _encode(payload, arrays, what)
    buf = io.BytesIO()
    members = {f"a{i}": a for i, a in enumerate(arrays)}
    members[_JSON] = np.frombuffer(json.dumps(tree).encode(), dtype=np.uint8)
    np.savez(buf, **members)
    return buf.getvalue()


def decode(data):
    """The payload from encode()'s bytes; ValueError if they are not such a file."""
    with np.load(io.BytesIO(data), allow_pickle=False) as npz:
        if _JSON not in npz.files:
            raise ValueError(f"an .npz without the {_JSON} member")
        tree = json.loads(npz[_JSON].tobytes().decode())
        arrays = [npz[f"a{i}"] for i in range(len(npz.files) - 1)]
    return _decode(tree, arrays)
