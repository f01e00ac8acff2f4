"""A configuration file the code loads, read as the run that takes every option's default would read it:
`yaml.safe_load(open(args.config))` with `--config` defaulting to "configs/base.yaml", `json.load(fh)` under
`with open(path) as fh` where every walked call of the function passes the same path. The file is looked up
where a run started from the script's folder or from the project's root finds it; its mapping (plain
values: strings, numbers, booleans, None, nested mappings and lists) becomes a dict literal that mappings.py
reads like one the source writes out. A path the source does not fix, a file that is not there, or one that
does not parse is unread (None): an entry of it is then unknown, never absent.
"""
import ast
import json
import os

LOADERS = {"yaml.safe_load": "yaml", "yaml.load": "yaml", "yaml.full_load": "yaml", "yaml.unsafe_load": "yaml",
           "json.load": "json"}
MAX_BYTES = 200_000  # a configuration, not a data file
_PARSED = {}  # absolute path -> ast.Dict, or None when unreadable


def loaded(f, call):
    """The ast.Dict of what `call` (a LOADERS call) loads, or None."""
    kind = LOADERS.get(f.s.qual(call.func))
    handle = call.args[0] if call.args else None
    path = _opened(f, handle)
    text = _path_text(f, path, call) if path is not None else None
    found = _located(f, text) if text else None
    return parse(found, kind) if found else None


def _opened(f, handle):
    """The path expression of `open(path)`, given as the call or as the name `with open(path) as fh` binds."""
    if isinstance(handle, ast.Call) and f.s.qual(handle.func) in ("open", "io.open") and handle.args:
        return handle.args[0]
    if isinstance(handle, ast.Name):
        for d in f.s.reaching(handle) or ():
            item = getattr(d, "parent", None)
            if isinstance(item, ast.withitem) and item.optional_vars is d:
                return _opened(f, item.context_expr)
    return None


def _path_text(f, path, at):
    """The path as a string on the default run: one value for every walked call of the function it is in."""
    from hvdkit.check.script import enclosing_def
    from hvdkit.check.values import Evaluator, Where
    ev = Evaluator(f.s, Where(0, defaults=True))
    func = enclosing_def(at)
    frames = [fr for fr in f.s.frames if fr.func is func] if func is not None else [None]
    texts = {ev.value(path, fr, _At(at)) for fr in frames or [None]}
    text = texts.pop() if len(texts) == 1 else None
    return text if isinstance(text, str) else None


class _At:
    """Where a path is read, for the evaluator: the call itself, at no particular point of the walk."""

    def __init__(self, node):
        from hvdkit.check.script import Ctx
        self.node, self.order, self.ctx = node, 1 << 30, Ctx()


def _located(f, text):
    """The file a run started from the script's folder, or from the project's root, opens."""
    if os.path.isabs(text):
        return text if os.path.isfile(text) else None
    for folder in (os.path.dirname(os.path.abspath(f.s.path)), f.s.project.root):
        candidate = os.path.normpath(os.path.join(folder, text))
        if os.path.isfile(candidate):
            return candidate
    return None


def parse(path, kind):
    """The file's top-level mapping as an ast.Dict (cached), or None."""
    if path not in _PARSED:
        _PARSED[path] = _parse(path, kind)
    return _PARSED[path]


def _parse(path, kind):
    try:
        if os.path.getsize(path) > MAX_BYTES:
            return None
        with open(path, encoding="utf-8") as fh:
            if kind == "json":
                data = json.load(fh)
            else:
                import yaml
                data = yaml.safe_load(fh)
    except Exception:  # noqa: BLE001 - any unreadable file (or no yaml module) is simply not read
        return None
    return _literal(data) if isinstance(data, dict) else None


def _literal(value):
    if isinstance(value, dict):
        keys = [k for k in value if isinstance(k, str)]
        return ast.Dict(keys=[ast.Constant(k) for k in keys], values=[_literal(value[k]) for k in keys])
    if isinstance(value, list):
        return ast.List(elts=[_literal(v) for v in value], ctx=ast.Load())
    if value is None or isinstance(value, (str, int, float, bool)):
        return ast.Constant(value)
    return ast.Name(id="<unreadable>", ctx=ast.Load())
