"""PyTorch constraints that raise before training, read from the arguments alone: torch's DataLoader
checks its options when it is built (torch/utils/data/dataloader.py), and raises ValueError for a sampler
with shuffle=True, a batch_sampler with batch_size / shuffle / sampler / drop_last, persistent_workers or
prefetch_factor without worker processes, a negative num_workers. (Horovod's DistributedOptimizer told to
name fewer parameters than the optimizer holds is step 5's unnamed_parameters(), which the crash finding
asks too: rules/step5_optimizer.py.)

Only values the source states count: `shuffle=True` as written, a sampler that is an object built right
there (a sampler class of torch or Horovod, or a class of the script), not a name that may hold None.
"""
import ast

LOADERS = ("torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader")
# DataLoader's parameters in order (torch 2.x), for arguments passed by position.
LOADER_PARAMS = ("dataset", "batch_size", "shuffle", "sampler", "batch_sampler", "num_workers", "collate_fn",
                 "pin_memory", "drop_last")


def find(names):
    out = []
    for node in names.nodes:
        if isinstance(node, ast.Call):
            q = names.qual(node.func)
            if q in LOADERS:
                out += _loader(node, names)
    return out


# --- DataLoader ------------------------------------------------------------------------------------
def _loader(call, names):
    a = dict(zip(LOADER_PARAMS, call.args))
    a.update({k.arg: k.value for k in call.keywords if k.arg})
    if any(isinstance(x, ast.Starred) for x in call.args) or any(k.arg is None for k in call.keywords):
        return []
    built = lambda key: key in a and _built_object(a[key], names)  # noqa: E731 - a local predicate
    true = lambda key: key in a and _constant(a[key]) is True  # noqa: E731
    workers = _constant(a["num_workers"]) if "num_workers" in a else 0
    msg = None
    if isinstance(workers, int) and not isinstance(workers, bool) and workers < 0:
        msg = "num_workers option should be non-negative; use num_workers=0 to disable multiprocessing."
    elif workers == 0 and "prefetch_factor" in a and _constant(a["prefetch_factor"]) not in (None, "?"):
        msg = "prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 to enable " \
              "multiprocessing, otherwise set prefetch_factor to None."
    elif workers == 0 and true("persistent_workers"):
        msg = "persistent_workers option needs num_workers > 0"
    elif built("sampler") and true("shuffle"):
        msg = "sampler option is mutually exclusive with shuffle"
    elif built("batch_sampler") and ("batch_size" in a and _constant(a["batch_size"]) not in (1, "?") or
                                     true("shuffle") or built("sampler") or true("drop_last")):
        msg = "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last"
    if msg is None:
        return []
    return [(call, f"ValueError: {msg}", "torch's DataLoader checks its options when it is built", "ValueError")]


def _constant(node):
    """The value of a literal (True, 0, None, ...), else '?'."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant) \
            and isinstance(node.operand.value, (int, float)):
        return -node.operand.value
    return "?"


def _built_object(node, names, depth=0):
    """The expression is an object built right there (never None): a class of torch.utils.data or Horovod,
    or a class of the project, called; or a name every definition of which is one."""
    if isinstance(node, ast.Call):
        q = names.qual(node.func)
        if q.startswith(("torch.utils.data.", "horovod.")) and q.rsplit(".", 1)[-1][:1].isupper():
            return True
        return isinstance(node.func, (ast.Name, ast.Attribute)) and isinstance(names.sole(node.func), ast.ClassDef)
    if isinstance(node, ast.Name) and depth < 5:
        values = names.values(node)
        return bool(values) and all(_built_object(v, names, depth + 1) for v in values)
    return False
