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


# --- torch.distributed's default process group --------------------------------------------------------
# Functions of torch.distributed that read the default process group and raise ValueError when no
# init_process_group ran (torch/distributed/distributed_c10d.py, _get_default_group). Horovod never creates
# that group: code left over from a DDP version (`dist.get_rank()`), or a DistributedSampler not told
# num_replicas and rank (it asks torch.distributed for them), raises under horovodrun.
DEFAULT_GROUP = ("get_rank", "get_world_size", "barrier", "monitored_barrier", "all_reduce", "all_gather",
                 "all_gather_object", "broadcast", "broadcast_object_list", "reduce", "gather", "scatter",
                 "reduce_scatter", "get_backend", "new_group")
SAMPLERS = ("torch.utils.data.DistributedSampler", "torch.utils.data.distributed.DistributedSampler")
GROUP_ERROR = "ValueError: Default process group has not been initialized, please make sure to call " \
    "init_process_group."


def no_process_group(facts):
    """(node, error, why, kind) for the calls that need torch.distributed's default group (DEFAULT_GROUP, and
    a DistributedSampler missing num_replicas or rank) when nothing in all the code read creates it: no
    init_process_group (or init_device_mesh) anywhere, no test of whether one exists (`dist.is_initialized()`),
    and no call into code that is not read (a module that is not there could create it) on the training's
    path. Only calls reached through call sites count, as
    for Horovod's own queries before hvd.init() (crash_calls.before_init)."""
    s = facts.s
    if any(e.qual.split(".")[-1] in ("init_process_group", "init_device_mesh", "is_initialized")
           for e in s.events) or any(u.kind != "library" for u in facts.unread_on_path):
        return []  # a group made, or code that asks whether one was (`if not dist.is_initialized(): return 0`)
    out = []
    for e in s.events:
        if not e.ctx.reached or any(fr.call is None for fr in e.ctx.frames):
            continue
        parts = e.qual.split(".")
        if parts[:2] == ["torch", "distributed"] and len(parts) == 3 and parts[2] in DEFAULT_GROUP:
            out.append((e.node, GROUP_ERROR, f"{ast.unparse(e.node.func)}() reads torch.distributed's default "
                        "group, and no init_process_group runs in all the code read (Horovod does not create it)",
                        "ValueError"))
        elif e.qual in SAMPLERS and _asks_torch_distributed(e.node):
            out.append((e.node, GROUP_ERROR, "a DistributedSampler not given num_replicas and rank asks "
                        "torch.distributed for them, and no init_process_group runs in all the code read: pass "
                        "num_replicas=hvd.size(), rank=hvd.rank()", "ValueError"))
    return out


def _asks_torch_distributed(call):
    """DistributedSampler(dataset, num_replicas=None, rank=None, ...): either left out (or None as written)."""
    if any(isinstance(x, ast.Starred) for x in call.args) or any(k.arg is None for k in call.keywords):
        return False
    given = dict(zip(("dataset", "num_replicas", "rank"), call.args))
    given.update({k.arg: k.value for k in call.keywords})
    return any(key not in given or _constant(given[key]) is None for key in ("num_replicas", "rank"))
