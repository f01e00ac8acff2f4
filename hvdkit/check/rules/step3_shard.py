"""Step 3: together the ranks take the data set once per epoch, each its own part."""
import ast
import re

from hvdkit.check import names
from hvdkit.check.findings import MISSING, OK, UNKNOWN, WRONG, Finding
from hvdkit.check.script import assigned_name, dotted, result_discarded


def judge(f):
    s = f.s
    parts, discarded, bad_args = [], [], []
    for e in s.events:
        q = s.qual(e.node.func)
        name = q.split(".")[-1]
        is_api = f.api(e, "shard")
        if (name == "shard" and isinstance(e.node.func, ast.Attribute)) or is_api or name == "DistributedSampler":
            if _is_eval(f, e):
                continue
            if not is_api and not (f.mentions(e.node, f.is_size) and f.mentions(e.node, f.is_rank)):
                bad_args.append(e)
            elif result_discarded(e.node) or (name == "DistributedSampler" and not _sampler_used(f, e)):
                discarded.append(e)
            else:
                parts.append(e)
    for node in ast.walk(s.tree):
        if isinstance(node, ast.Subscript) and f.mentions(node.slice, f.is_rank) and f.mentions(node, f.is_size):
            parts.append(_Pseudo(node))
        elif isinstance(node, ast.Call) and s.qual(node.func) == "range" and len(node.args) == 3 \
                and f.mentions(node.args[0], f.is_rank) and f.mentions(node.args[2], f.is_size):
            tgt = getattr(node, "parent", None)
            if not names.EVAL_NAMES.search(ast.unparse(tgt) if tgt is not None else ""):
                parts.append(_Pseudo(node))
    divided = _divided_steps(f)
    if not parts and not discarded and not bad_args and not _has_data(f):
        return Finding(UNKNOWN, "no data pipeline found (synthetic data?): nothing to shard")
    one_batch = _random_batch(f)
    if not parts and not discarded and not bad_args and not divided and one_batch is not None:
        return Finding(UNKNOWN, f"synthetic data: one random batch (line {one_batch.line}) fed again and again; "
                       "nothing to shard", one_batch.line)
    if bad_args:
        e = bad_args[0]
        return Finding(WRONG, f"line {e.line} splits the data without hvd.size() and hvd.rank(): {f.text(e.line)}",
                       e.line, "pass num_replicas=hvd.size(), rank=hvd.rank() (or shard(hvd.size(), hvd.rank()))")
    if parts:
        sharded = _sharded_names(f, parts)
        twice = [d for d in divided if _mentions_name(f, d.left, sharded)]
        if twice:
            d = twice[0]
            return Finding(WRONG, f"steps divided twice: line {d.lineno} divides this rank's own share of the data "
                           f"(already sharded, line {parts[0].line}) by hvd.size() again: an epoch covers 1/size of it",
                           d.lineno, "shard OR divide the steps by hvd.size(), not both")
        before = _len_before_shard(f, sharded)
        if before is not None:
            return Finding(WRONG, f"steps per epoch at line {before.lineno} count the whole data set, not this rank's "
                           "shard: every rank makes a full epoch of steps", before.lineno,
                           "take len() of the sharded data, or divide that count by hvd.size()")
        return Finding(OK, f"true partition: {f.text(parts[0].line)}", parts[0].line)
    if discarded:
        e = discarded[0]
        return Finding(WRONG, f"the shard at line {e.line} is made and then not used: every rank reads everything",
                       e.line, "use the result: ds = ds.shard(...), or DataLoader(..., sampler=sampler)")
    if divided:
        d = divided[0]
        same = _same_seed(f)
        if same is not None:
            return Finding(WRONG, f"steps divided by hvd.size() (line {d.lineno}) but the shuffle is seeded alike on "
                           f"every rank (line {same.lineno}): all ranks read the same batches", same.lineno,
                           "seed with the rank (seed + hvd.rank()) or shard the data")
        if not _shuffled(f):
            return Finding(WRONG, f"steps divided by hvd.size() (line {d.lineno}) over unshuffled data: every rank "
                           "reads the same first 1/size of it", d.lineno, "shard the data, or shuffle it per rank")
        return Finding(OK, f"Horovod's idiom: a per-rank shuffle and the steps divided by hvd.size() (line "
                       f"{d.lineno})", d.lineno)
    return Finding(MISSING, "every rank trains on the whole data set each epoch", None,
                   "shard: DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.rank()) / "
                   "ds.shard(hvd.size(), hvd.rank()), or divide steps per epoch by hvd.size()")


def _has_data(f):
    if any(e.node.args or any(k.arg == "x" for k in e.node.keywords) for e in f.fits):
        return True
    return any(names.DATA_SOURCES.match(f.s.qual(e.node.func).split(".")[-1]) or ".datasets." in f.s.qual(e.node.func)
               for e in f.s.events)


def _random_batch(f):
    """A random tensor shaped by the batch size: a benchmark's single synthetic batch."""
    for e in f.s.events:
        q = f.s.qual(e.node.func)
        if names.RANDOM_MAKERS.match(q.split(".")[-1]) and "random" in q or q in ("torch.randn", "torch.rand", "torch.randint"):
            if any(re.search(r"batch", ast.unparse(a), re.I) for a in e.node.args[:1] + e.node.args[1:2]):
                return e
    return None


class _Pseudo:
    def __init__(self, node):
        self.node, self.line = node, node.lineno


def _is_eval(f, e):
    text = (assigned_name(e.node) or "") + " " + " ".join(ast.unparse(a) for a in e.node.args[:1])
    return bool(names.EVAL_NAMES.search(text))


def _sampler_used(f, e):
    if any(isinstance(p, ast.keyword) and p.arg in ("sampler", "batch_sampler") for p in _parents(e.node)):
        return True
    name = assigned_name(e.node)
    for other in f.s.events:
        for k in other.node.keywords:
            if k.arg in ("sampler", "batch_sampler") and name and name in {dotted(n) for n in ast.walk(k.value)}:
                return True
    return False


def _parents(node):
    while getattr(node, "parent", None) is not None:
        node = node.parent
        yield node


def _divided_steps(f):
    """Divisions by hvd.size() that set how many steps (or epochs) a rank takes."""
    out = []
    for node in ast.walk(f.s.tree):
        if not (isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Div, ast.FloorDiv))
                and f.mentions(node.right, f.is_size)):
            continue
        for p in _parents(node):
            if isinstance(p, ast.keyword) and p.arg:
                if p.arg in names.STEP_KWARGS:
                    out.append(node)
                break
            if isinstance(p, ast.Call) and f.s.qual(p.func).split(".")[-1] in ("take", "range", "islice"):
                out.append(node)
                break
            if isinstance(p, (ast.Assign, ast.AugAssign)):
                t = p.targets[0] if isinstance(p, ast.Assign) else p.target
                name = dotted(t) or ""
                if names.STEP_NAMES.search(name) and not names.EVAL_NAMES.search(name) and "lr" not in name.lower():
                    out.append(node)
                break
            if isinstance(p, ast.stmt):
                break
    return out


def _sharded_names(f, parts):
    """Names holding sharded data: a shard's result, and names assigned from expressions using one."""
    names = {assigned_name(p.node) for p in parts if hasattr(p.node, "func")} - {None}
    for p in parts:  # DataLoader(..., sampler=DistributedSampler(...)) written inline
        for anc in _parents(p.node):
            if isinstance(anc, (ast.Assign, ast.AnnAssign)):
                names.add(assigned_name(anc.value) if isinstance(anc.value, ast.Call) else None)
                break
    names.discard(None)
    changed = True
    while changed:
        changed = False
        for a in f.s.assigns:
            t = a.node.targets[0] if isinstance(a.node, ast.Assign) else a.node.target
            name = dotted(t)
            if name and name not in names and a.node.value is not None and _mentions_name(f, a.node.value, names):
                names.add(name)
                changed = True
    return names


def _mentions_name(f, node, names):
    return any(dotted(n) in names for n in ast.walk(node) if isinstance(n, (ast.Name, ast.Attribute)))


def _len_before_shard(f, sharded):
    """A steps_per_epoch=/take() count built from len() of data that is not a shard's result."""
    # take(n) on a finite shard only caps the epoch; on a repeated one it makes every rank take n steps.
    # fit(steps_per_epoch=n) needs n batches per epoch either way (or Keras stops: "ran out of data").
    repeated = any(isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "repeat" for n in ast.walk(f.s.tree))
    for e in f.s.events:
        sinks = [k.value for k in e.node.keywords if k.arg == "steps_per_epoch"]
        if isinstance(e.node.func, ast.Attribute) and e.node.func.attr == "take" and repeated:
            sinks += e.node.args[:1]
        for sink in sinks:
            if f.mentions(sink, f.is_size):
                continue
            lens = [n for n in ast.walk(sink) if isinstance(n, ast.Call) and f.s.qual(n.func) == "len"]
            for a in (x for n in ast.walk(sink) if isinstance(n, ast.Name) for x in f.s.assignments_to(n.id)):
                lens += [n for n in ast.walk(a.node) if isinstance(n, ast.Call) and f.s.qual(n.func) == "len"]
            for n in lens:
                if n.args and dotted(n.args[0]) not in sharded:
                    return sink
    return None


def _same_seed(f):
    for e in f.s.events:
        q = f.s.qual(e.node.func)
        last = q.split(".")[-1]
        seed = None
        if last in names.SEEDERS and e.node.args and q.split(".")[0] in ("torch", "tensorflow", "keras", "numpy", "random"):
            seed = e.node.args[0]
        elif last == "shuffle":
            seed = next((k.value for k in e.node.keywords if k.arg == "seed"), None)
        if seed is not None and not f.mentions(seed, f.is_rank):
            return e.node
    return None


def _shuffled(f):
    for e in f.s.events:
        q = f.s.qual(e.node.func)
        last = q.split(".")[-1]
        kw = {k.arg: k.value for k in e.node.keywords}
        if last == "shuffle" and isinstance(e.node.func, ast.Attribute):
            return True
        if last == "DataLoader" and isinstance(kw.get("shuffle"), ast.Constant) and kw["shuffle"].value:
            return True
        if last in ("fit", "flow", "flow_from_directory") and not (
                isinstance(kw.get("shuffle"), ast.Constant) and kw["shuffle"].value is False):
            first = e.node.args[0] if e.node.args else kw.get("x")
            if last != "fit" or first is not None and not _is_dataset(f, first):
                return True
    return False


def _is_dataset(f, node):
    return f.mentions(node, lambda n: isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                      and n.func.attr in ("from_tensor_slices", "batch", "repeat", "flow", "from_generator"))
