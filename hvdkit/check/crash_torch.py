"""PyTorch constraints that raise before training, read from the arguments alone: torch's DataLoader
checks its options when it is built (torch/utils/data/dataloader.py), and raises ValueError for a sampler
with shuffle=True, a batch_sampler with batch_size / shuffle / sampler / drop_last, persistent_workers or
prefetch_factor without worker processes, a negative num_workers; and a loss computed with its default
reduction, a 0-dim tensor, indexed as PyTorch before 0.4 allowed (`loss.data[0]`): IndexError. (Horovod's
DistributedOptimizer told to name fewer parameters than the optimizer holds is step 5's unnamed_parameters(),
which the crash finding asks too: rules/step5_optimizer.py.)

Only values the source states count: `shuffle=True` as written, a sampler that is an object built right
there (a sampler class of torch or Horovod, or a class of the script), not a name that may hold None.
"""
import ast

from hvdkit.check.defs import assigned_value

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
        elif isinstance(node, ast.Subscript):
            out += _zero_dim_index(node, names)
    return out


# --- a loss indexed as if it were a 1-element tensor (PyTorch before 0.4) ------------------------------
# torch.nn.functional's losses; with their default reduction each returns a 0-dim tensor (so do torch.nn's
# loss modules, the classes named ...Loss).
LOSSES = ("cross_entropy", "nll_loss", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy",
          "binary_cross_entropy_with_logits", "kl_div", "poisson_nll_loss", "soft_margin_loss",
          "multilabel_soft_margin_loss", "hinge_embedding_loss", "margin_ranking_loss", "cosine_embedding_loss")
ZERO_DIM = "IndexError: invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in " \
    "C++ to convert a 0-dim tensor to a number"


def _zero_dim_index(node, names):
    """`loss.data[0]` or `loss[0]` where every definition of `loss` is a loss computed with its default
    reduction: a 0-dim tensor, which torch (0.4 and later) refuses to index."""
    base = node.value.value if isinstance(node.value, ast.Attribute) and node.value.attr == "data" else node.value
    if not (isinstance(node.ctx, ast.Load) and isinstance(node.slice, ast.Constant) and type(node.slice.value) is int
            and isinstance(base, ast.Name)):
        return []
    defs = names.definitions(base)
    values = [assigned_value(d) if isinstance(d, ast.Name) else None for d, _ in defs or ()]
    if not values or not all(v is not None and _scalar_loss(v, names) for v in values):
        return []
    return [(node, ZERO_DIM, f"{ast.unparse(base)} is a loss with its default reduction, a 0-dim tensor: "
             f"{ast.unparse(node)} indexes it (`.item()` reads its value)", "IndexError")]


def _scalar_loss(call, names):
    if not isinstance(call, ast.Call) or not isinstance(call.func, (ast.Name, ast.Attribute)) or not _reduced(call):
        return False
    q = names.qual(call.func)
    if q.startswith("torch.nn.functional.") and q.rsplit(".", 1)[1] in LOSSES:
        return len(call.args) <= 3  # (input, target, weight): the older reduce / size_average come later
    defs = names.definitions(call.func) if isinstance(call.func, ast.Name) else None
    made = [assigned_value(d) if isinstance(d, ast.Name) else None for d, _ in defs or ()]
    return bool(made) and all(isinstance(m, ast.Call) and _reduced(m) and len(m.args) <= 1 and names.qual(
        m.func).startswith("torch.nn.") and names.qual(m.func).endswith("Loss") for m in made)


def _reduced(call):
    """Called with the default reduction: no `reduction` other than 'mean' or 'sum', no older `reduce` or
    `size_average` (reduce=False keeps one loss per element), and no `**` that may give one."""
    for k in call.keywords:
        if k.arg is None or k.arg in ("reduce", "size_average"):
            return False
        if k.arg == "reduction" and not (isinstance(k.value, ast.Constant) and k.value.value in ("mean", "sum")):
            return False
    return True


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
