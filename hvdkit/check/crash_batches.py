"""A torch DataLoader's batches unpacked into more (or fewer) names than a batch holds: ValueError on the
first step.

With the default collate_fn a batch has the shape of one sample, stacked: a DataLoader over one tensor
(its rows are the samples) gives one tensor of `batch_size` rows, and `for data, target in loader` unpacks
that tensor along its first dimension (ValueError unless batch_size equals the number of names, and then
only until a shorter last batch); a DataLoader over `TensorDataset(a, b, c)` gives a list of three tensors
whatever the batch size. Read from what the source states: the data set made by a tensor constructor
(`torch.tensor`, `torch.cat`, `torch.from_numpy`, ...), through names, the returns of the project's
functions and methods and the attributes a project class sets (`corpus.train` of a Corpus whose
`tokenize()` returns `torch.cat(ids)`); the batch size a literal or the declared default of an argparse
option (`--batch-size`, default 20); no collate_fn, no batch_sampler.
"""
import ast

from hvdkit.check.crash_names import FUNCS, returns

LOADERS = ("torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader")
TENSOR_DATASETS = ("torch.utils.data.TensorDataset", "torch.utils.data.dataset.TensorDataset")
# torch's functions that make one tensor.
TENSOR_MAKERS = {f"torch.{n}" for n in (
    "tensor", "as_tensor", "from_numpy", "cat", "concat", "concatenate", "stack", "zeros", "ones", "empty", "full",
    "rand", "randn", "randint", "randperm", "arange", "linspace", "zeros_like", "ones_like", "rand_like",
    "randn_like", "Tensor", "LongTensor", "FloatTensor", "DoubleTensor", "IntTensor", "ByteTensor", "BoolTensor")}
# Tensor methods whose result is one tensor again.
TENSOR_METHODS = ("to", "type", "long", "float", "double", "int", "half", "bool", "cuda", "cpu", "view", "reshape",
                  "contiguous", "t", "narrow", "clone", "detach", "squeeze", "unsqueeze", "flatten", "permute")
# DataLoader's parameters in order (torch 2.x), for arguments passed by position.
LOADER_PARAMS = ("dataset", "batch_size", "shuffle", "sampler", "batch_sampler", "num_workers", "collate_fn")


def find(names, args):
    """(node, error, why, kind) for each for-loop that unpacks a DataLoader's batches into a number of names
    its batches cannot have. `args`: crash_args.Args, for the declared default of a batch-size option."""
    out = []
    for node in names.nodes:
        if not isinstance(node, (ast.For, ast.AsyncFor)):
            continue
        target, source = _unpacked(node)
        loader = _loader(source, names) if target is not None else None
        if loader is None:
            continue
        got = _batch_length(loader, names, args)
        k = len(target.elts)
        if got is None or got[0] == k:
            continue
        n, what = got
        error = f"ValueError: too many values to unpack (expected {k})" if n > k else \
            f"ValueError: not enough values to unpack (expected {k}, got {n})"
        out.append((target, error, f"each batch of the DataLoader at line {loader.lineno} is {what}, unpacked into "
                                   f"{k} names", "ValueError"))
    return out


def _unpacked(loop):
    """(the tuple target, the iterable) of `for a, b in X` or `for i, (a, b) in enumerate(X)`; (None, None)
    for any other loop."""
    target, source = loop.target, loop.iter
    if isinstance(source, ast.Call) and isinstance(source.func, ast.Name) and source.func.id == "enumerate" and \
            len(source.args) == 1 and isinstance(target, ast.Tuple) and len(target.elts) == 2:
        target, source = target.elts[1], source.args[0]
    if isinstance(target, (ast.Tuple, ast.List)) and len(target.elts) >= 2 and \
            not any(isinstance(e, ast.Starred) for e in target.elts):
        return target, source
    return None, None


def _loader(node, names):
    """The DataLoader call an iterable is, through names every definition of which is one such call."""
    if isinstance(node, ast.Name):
        values = names.values(node)
        found = {id(v): v for v in (_loader(v, names) for v in values or ()) if v is not None}
        return next(iter(found.values())) if values and len(found) == 1 and \
            all(_loader(v, names) is not None for v in values) else None
    if isinstance(node, ast.Call) and names.qual(node.func) in LOADERS and \
            not any(isinstance(a, ast.Starred) for a in node.args) and not any(k.arg is None for k in node.keywords):
        return node
    return None


def _batch_length(loader, names, args):
    """(how many elements unpacking a batch gives, what a batch is) or None when the source does not say."""
    given = dict(zip(LOADER_PARAMS, loader.args))
    given.update({k.arg: k.value for k in loader.keywords})
    if "collate_fn" in given or "batch_sampler" in given or "dataset" not in given:
        return None
    data = given["dataset"]
    parts = _tensor_dataset(data, names)
    if parts is not None:
        return parts, f"a list of the {parts} tensors of the TensorDataset"
    if not _one_tensor(data, names, 0):
        return None
    size = given.get("batch_size")
    value = 1 if size is None else size.value if isinstance(size, ast.Constant) else \
        args.default(size) if isinstance(size, ast.Attribute) else None
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        return None
    return value, f"one tensor of {value} rows (the data set `{ast.unparse(data)}` is one tensor)"


def _tensor_dataset(node, names, depth=0):
    """The number of tensors of a TensorDataset made with them written out, or None."""
    if isinstance(node, ast.Name) and depth < 5:
        values = names.values(node)
        counts = {_tensor_dataset(v, names, depth + 1) for v in values or ()}
        return counts.pop() if values and len(counts) == 1 else None
    if isinstance(node, ast.Call) and names.qual(node.func) in TENSOR_DATASETS and node.args and \
            not node.keywords and not any(isinstance(a, ast.Starred) for a in node.args):
        return len(node.args)
    return None


def _one_tensor(node, names, depth):
    """The expression's value is one tensor, by what makes it (every way it may be made)."""
    if depth > 8:
        return False
    if isinstance(node, ast.Call):
        if names.qual(node.func) in TENSOR_MAKERS:
            return True
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in TENSOR_METHODS and \
                _one_tensor(func.value, names, depth + 1):
            return True
        target = callee(func, names)
        values = [r.value for r in returns(target)] if target is not None else []
        return bool(values) and all(v is not None and _one_tensor(v, names, depth + 1) for v in values)
    if isinstance(node, ast.Name):
        values = names.values(node)
        return bool(values) and all(_one_tensor(v, names, depth + 1) for v in values)
    if isinstance(node, ast.Attribute):
        values = _attribute_values(node, names)
        return bool(values) and all(_one_tensor(v, names, depth + 1) for v in values)
    return False


def callee(func, names):
    """The project's function or method a call runs: by its definition, or `self.m` of an undecorated method
    of a class nothing subclasses; None otherwise."""
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        cls = names.self_class(func)
        if cls is not None and not names.subclassed(cls):
            methods = [f for f in cls.body if isinstance(f, FUNCS) and f.name == func.attr]
            return methods[0] if len(methods) == 1 and not methods[0].decorator_list else None
    target = names.sole(func) if isinstance(func, (ast.Name, ast.Attribute)) else None
    return target if isinstance(target, FUNCS) and not target.decorator_list else None


def _attribute_values(node, names):
    """The values assigned to `obj.attr` where obj is an instance of a project class (every definition of
    obj a call of that one class, or `self` in its method): the `self.attr = value` of its methods."""
    cls = names.self_class(node) if isinstance(node.value, ast.Name) else None
    if cls is None and isinstance(node.value, ast.Name):
        made = names.values(node.value)
        classes = {id(c): c for c in (names.sole(v.func) if isinstance(v, ast.Call) and isinstance(
            v.func, (ast.Name, ast.Attribute)) else None for v in made or ())}
        cls = next(iter(classes.values())) if made and len(classes) == 1 else None
    if not isinstance(cls, ast.ClassDef) or names.subclassed(cls) or node.attr in _class_level(cls):
        return None
    return names.self_assignments(cls, node.attr)


def _class_level(cls):
    return {t.id for s in cls.body if isinstance(s, ast.Assign) for t in s.targets if isinstance(t, ast.Name)} | \
        {s.name for s in cls.body if isinstance(s, FUNCS + (ast.ClassDef,))}
