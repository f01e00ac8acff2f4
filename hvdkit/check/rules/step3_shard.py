"""Step 3: together the ranks take the data set once per epoch, each its own part."""
import ast
import re

from hvdkit.check import names, values
from hvdkit.check.defs import bound_targets
from hvdkit.check.findings import MISSING, OK, UNKNOWN, WRONG, Finding
from hvdkit.check.script import Event, NodeAt, assigned_name, dotted, enclosing_def, parents, result_discarded
from hvdkit.check.rules.data_flow import flows, over_data, random_maker, unread_training
from hvdkit.check.rules.held import depends_on_rank, imported, placed, reaching
from hvdkit.check.sources import derived, sources


class Shares:
    """What the ranks read: partitions found on the default run (events or nodes with a .line), shards made and
    not used, splits not given size and rank, step counts divided by hvd.size(), partitions of evaluation data,
    shard() calls given the rank as the number of shards and the size as the index, partitions indexed by the
    local rank, partitions made only with options that are off by default ([(part, [option])]), and training
    loaders handed the rank by code that never reads it."""

    def __init__(self, parts, discarded, bad_args, divided, eval_parts, swapped=(), local=(), optional=(),
                 ignored=()):
        self.parts, self.discarded, self.bad_args = parts, discarded, bad_args
        self.divided, self.eval_parts, self.swapped = divided, eval_parts, list(swapped)
        self.local, self.optional, self.ignored = list(local), list(optional), list(ignored)

    @property
    def train_partitioned(self):
        return bool(self.parts or self.divided)


def shares(f):
    """Shares of the script (Facts.shares: computed once; step 8 asks too)."""
    return f.shares


def find_shares(f):
    s = f.s
    parts, discarded, bad_args, eval_parts, swapped, local, ignored = [], [], [], [], [], [], []
    for e in s.events:
        given = _loader_given_rank(f, e)
        if given and _rank_ignored(f, e):
            given = False
            if e.ctx.reached and not _is_eval(f, e):
                ignored.append(e)
        q = s.qual(e.node.func)
        name = q.split(".")[-1]
        is_api = f.api(e, *names.SELF_PARTITIONING)  # Horovod's or hvdkit's: they read rank and size themselves
        if (name == "shard" and isinstance(e.node.func, ast.Attribute)) or is_api or name in names.SAMPLERS:
            if _factory_calls(f, e) is not None and f.runs(e).kind == "never":
                continue  # `make_loader(ds, distributed=False)`: this call of the factory makes no part
            if _is_eval(f, e):
                eval_parts.append(e)
            elif name == "shard" and not is_api and _swapped(f, e):
                swapped.append(e)
            elif not is_api and _local_only(f, _split_by(e, name)):
                local.append(e)
            elif not is_api and not (f.mentions(e.node, f.is_size) and f.mentions(e.node, f.is_rank)):
                bad_args.append(e)
            elif result_discarded(e.node) or (name in names.SAMPLERS and not _sampler_used(f, e)):
                discarded.append(e)
            else:
                parts.append(e)
        elif given or _per_rank_file(f, e) or \
                name == "scatter" and e.ctx.reached:
            (eval_parts if _is_eval(f, e) else parts).append(e)
        elif _per_rank_file(f, e, f.is_local_rank) and not _is_eval(f, e):
            local.append(e)  # a file per local rank: on 2 nodes ranks 0 and 4 read the same one
    for node in s.nodes():  # the project modules read too: `x[rank::size]` in a data module
        index = node.slice if isinstance(node, ast.Subscript) else node.args[0] if _index_range(s, node) else None
        if index is None or not f.mentions(node, f.is_size):
            continue
        if isinstance(node, ast.Call) and len(node.args) == 2 and not f.mentions(
                node.args[1], f.is_any_rank):
            continue  # a block ends where the next rank's starts; `range(start_epoch, epochs)` is no block
        if f.mentions(index, f.is_rank):
            (eval_parts if _is_eval(f, NodeAt(node)) else parts).append(NodeAt(node))
        elif _by_local_rank(f, index) and not _is_eval(f, NodeAt(node)):
            local.append(NodeAt(node))
    for node in _round_robin_tests(f):  # `ds.enumerate().filter(lambda i, xy: tf.equal(i % world, rank))`
        (eval_parts if _is_eval(f, NodeAt(node)) else parts).append(NodeAt(node))
    parts += _branches_by_rank(f)
    optional = [(p, _off_default(f, p)) for p in parts]
    optional = [(p, o) for p, o in optional if o]
    parts = [p for p in parts if not any(p is q for q, _ in optional)]
    return Shares(parts, discarded, bad_args, _divided_steps(f), eval_parts, swapped, local, optional, ignored)


def _local_only(f, args):
    """The split arguments read the local rank and never the global one."""
    return any(f.mentions(a, f.is_local_rank) for a in args) and not any(f.mentions(a, f.is_rank) for a in args)


def _split_by(e, name):
    """The arguments that say which part a rank takes: a sampler's all but the data set it is handed (whose
    contents may well depend on the rank: statistics rank 0 computed and broadcast), shard's all."""
    given = [k.value for k in e.node.keywords if k.arg not in ("dataset", "data_source")]
    return (e.node.args[1:] if name in names.SAMPLERS else e.node.args) + given


def _feeds_training(f, part):
    """The partition is of the training data: its node flows into what the optimizer steps consume, or it is
    cut in a method of a project class (a sampler's `__iter__`: `batches[self.rank::self.world]`) whose
    instance does."""
    train = flows(f).train
    if id(part.node) in train:
        return True
    cls = next((p for p in parents(part.node) if isinstance(p, ast.ClassDef)), None)
    return cls is not None and any(id(e.node) in train and f.s.class_called(e.node.func) is cls
                                   for e in f.s.events if e.ctx.reached)


def _index_range(s, node):
    """A range of indices a rank may set: `range(rank, n, size)` (a stride) or a block, `range(rank * per,
    (rank + 1) * per)` / `np.arange(...)` / `torch.arange(...)` with per = n // size."""
    if not isinstance(node, ast.Call) or len(node.args) not in (2, 3):
        return False
    q = s.qual(node.func)
    return q == "range" or q in ("numpy.arange", "torch.arange")


def _swapped(f, e):
    """shard(hvd.rank(), hvd.size()): tf.data's (and datasets') shard takes (num_shards, index), so every rank
    asks for a shard index >= the number of shards and the call raises."""
    kw = {k.arg: k.value for k in e.node.keywords}
    args = e.node.args
    count = args[0] if args else kw.get("num_shards")
    index = args[1] if len(args) > 1 else kw.get("index")
    if count is None or index is None:
        return False
    return f.mentions(count, f.is_rank) and not f.mentions(count, f.is_size) and \
        f.mentions(index, f.is_size) and not f.mentions(index, f.is_rank)


def judge(f):
    sh = shares(f)
    parts, discarded, bad_args, divided = sh.parts, sh.discarded, sh.bad_args, sh.divided
    picked = _random_picks(f)
    experience = _experience(f) if not parts else None
    if experience is not None:  # minibatches picked from a rank's own rollouts are no partition of a data set
        return experience
    if not parts and not discarded and not bad_args and not _has_data(f) and not picked:
        return Finding(UNKNOWN, "no data pipeline found (synthetic data?): nothing to shard")
    one_batch = _random_batch(f)
    if not parts and not discarded and not bad_args and not divided and one_batch is not None and not picked:
        return Finding(UNKNOWN, f"synthetic data: one random batch (line {one_batch.line}) fed again and again; "
                       "nothing to shard", one_batch.line)
    if sh.swapped:
        line = sh.swapped[0].node.func.end_lineno  # the .shard( of a chain, not the chain's first line
        return Finding(WRONG, f"line {line} gives shard() the rank as the number of shards and the size as the "
                       f"index ({f.text(line)}): every rank's index is >= its number of shards, and shard() "
                       "raises", line, "ds.shard(hvd.size(), hvd.rank()): the number of shards first, then the index")
    if bad_args:
        e = bad_args[0]
        unread = _unread_split(f, e)
        if unread:
            return Finding(UNKNOWN, f"line {e.line} splits the data by values from code that could not be read: "
                           f"{'; '.join(f.describe(u) for u in unread[:2])}: cannot tell whether they are the size "
                           "and the rank", e.line, "make that code readable (give --root the project's folder) or run "
                           "`hvdkit check --run`")
        return Finding(WRONG, f"line {e.line} splits the data without hvd.size() and hvd.rank(): {f.text(e.line)}",
                       e.line, "pass num_replicas=hvd.size(), rank=hvd.rank() (or shard(hvd.size(), hvd.rank()))")
    local = [p for p in sh.local if _feeds_training(f, p)]
    if local:
        e = local[0]
        return Finding(WRONG, f"line {e.line} picks this rank's part by hvd.local_rank() ({f.text(e.line)}): on 2 "
                       "nodes ranks 0 and 4 (local rank 0 on each) read the same part, and the parts of local ranks "
                       "the nodes do not have are never read", e.line,
                       "pick the part by the global rank: hvd.rank() (with hvd.size() parts)")
    if sh.ignored and not parts:
        e = sh.ignored[0]
        return Finding(WRONG, f"line {e.line} hands `{ast.unparse(e.node.func)}` the rank, but its code never uses it "
                       "(the rank is not read, or kept on the instance and never read back): every rank reads the "
                       "same data", e.line, "use the rank in that code to pick this rank's part (indices[rank::size]), "
                       "or use torch's DistributedSampler")
    as_data = _sampler_as_data(f)
    if as_data is not None:
        loader, sampler = as_data
        return Finding(WRONG, f"line {loader.line} gives the DataLoader the sampler of line {sampler.line} as its data "
                       f"set ({f.text(loader.line)}): the loader indexes the sampler (TypeError at the first batch), "
                       "and no rank reads its part", loader.line,
                       "DataLoader(dataset, sampler=sampler): the data set first, the sampler by keyword")
    both = _sampler_and_shuffle(f)
    if both is not None:
        return Finding(WRONG, f"line {both.line} gives the DataLoader a sampler and shuffle=True: PyTorch raises "
                       "ValueError (sampler option is mutually exclusive with shuffle)", both.line,
                       "drop shuffle=True (the DistributedSampler shuffles) and call sampler.set_epoch(epoch)")
    overlap = _overlapping_subsets(f, picked, parts) or _shuffled_before_partition(f, parts)
    if overlap is not None:
        return overlap
    seeded = _rank_seeded_sampler(f, parts)
    if seeded is not None:
        return Finding(WRONG, f"line {seeded.line} seeds the DistributedSampler with the rank ({f.text(seeded.line)}): "
                       "each rank permutes the data differently before taking its every size-th index, so the "
                       "ranks' parts overlap and some samples are never read", seeded.line,
                       "give every rank the same seed (seed=args.seed): the sampler partitions one common permutation")
    copies = _copies(f)
    if copies is not None:
        return Finding(WRONG, f"line {copies.lineno} makes hvd.size() copies of the same part of the data and each "
                       "rank takes one: the ranks read the same samples, and the rest is never read", copies.lineno,
                       "shard: ds.shard(hvd.size(), hvd.rank()) (or give each rank a different slice)")
    if parts:
        sharded = _sharded_names(f, parts)
        twice = [d for d in divided if _mentions_name(f, getattr(d, "left", d), sharded)]
        if twice:
            d = twice[0]
            return Finding(WRONG, f"steps divided twice: line {d.lineno} divides this rank's own share of the data "
                           f"(already sharded, line {parts[0].line}) by hvd.size() again: an epoch covers 1/size of it",
                           d.lineno, "shard OR divide the steps by hvd.size(), not both")
        epochs = _divided_epochs(f)
        if epochs:
            d = epochs[0]
            return Finding(WRONG, f"the epochs are divided by hvd.size() (line {d.lineno}: {f.text(d.lineno)}) "
                           f"although the data is partitioned (line {parts[0].line}): each epoch already covers the "
                           "data once over all ranks, so together they make 1/size of the sequential passes", d.lineno,
                           "partition OR divide the epochs (Horovod's idiom for data every rank reads whole), not both")
        before = _len_before_shard(f, sharded)
        if before is not None:
            return Finding(WRONG, f"steps per epoch at line {before.lineno} count the whole data set, not this rank's "
                           "shard: every rank makes a full epoch of steps", before.lineno,
                           "take len() of the sharded data, or divide that count by hvd.size()")
        return Finding(OK, f"the ranks read disjoint parts: {f.text(parts[0].line)}", parts[0].line)
    if sh.optional:
        p, options = sh.optional[0]
        return Finding(WRONG, f"the data is split only with {', '.join(options)} (line {p.line}: {f.text(p.line)}): "
                       "with the defaults every rank reads the whole data set", p.line,
                       "split it on every run: DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.rank())")
    if discarded:
        e = discarded[0]
        return Finding(WRONG, f"the shard at line {e.line} is made and then not used: every rank reads everything",
                       e.line, "use the result: ds = ds.shard(...), or DataLoader(..., sampler=sampler)")
    if divided:
        d = divided[0]
        unread = _unread_partition(f, f"steps divided by hvd.size() (line {d.lineno}); a partition of the data")
        if unread is not None:
            return unread  # the data may be partitioned there: the idiom's needs (a per-rank shuffle) do not apply
        same = _same_seed(f)
        # a global seed, or no shuffle seen, over data made by code that is not there: the shuffle (or a shard)
        # may be there, so the idiom cannot be judged; a shuffle seen seeded alike is wrong whatever that code
        # made (the same batches, or a shard's steps divided twice)
        seen = any(f.s.qual(e.node.func).split(".")[-1] == "shuffle" and any(
            k.arg == "seed" and not f.mentions(k.value, f.is_rank) for k in e.node.keywords) for e in f.s.events)
        absent = _made_by_absent_code(f) if not seen and (same is not None or not _shuffled(f)) else None
        if absent is not None:
            return Finding(UNKNOWN, f"steps divided by hvd.size() (line {d.lineno}) over training data made by code "
                           f"that could not be read: {f.describe(absent)}: cannot tell whether each rank reads "
                           "other batches", absent.line, "make that code readable (give --root the project's "
                           "folder) or run `hvdkit check --run`")
        if same is not None:
            return Finding(WRONG, f"steps divided by hvd.size() (line {d.lineno}) but the shuffle is seeded alike on "
                           f"every rank (line {same.lineno}): all ranks read the same batches", same.lineno,
                           "seed with the rank (seed + hvd.rank()) or shard the data")
        if not _shuffled(f):
            return Finding(WRONG, f"steps divided by hvd.size() (line {d.lineno}) over unshuffled data: every rank "
                           "reads the same first 1/size of it", d.lineno, "shard the data, or shuffle it per rank")
        finite = _cap_on_finite_data(f, d)
        if finite is not None:
            return Finding(WRONG, f"line {d.lineno} caps the steps at a count divided by hvd.size(), but the data set "
                           f"(line {finite.lineno}) is not repeated: an epoch ends at its own end, and each rank reads "
                           "all of it until the cap is smaller than its number of batches", d.lineno,
                           "shard the data (ds.shard(hvd.size(), hvd.rank())), or repeat() it before take()")
        what = "epochs" if any(d is x for x in _divided_epochs(f)) else "steps"
        return Finding(OK, f"Horovod's idiom: a per-rank shuffle and the {what} divided by hvd.size() (line "
                       f"{d.lineno})", d.lineno)
    drawn = _drawn_per_rank(f)
    if drawn is not None:
        return Finding(OK, f"each rank draws its own random samples at every step (line {drawn.line}: "
                       f"{f.text(drawn.line)}) from a generator seeded with the rank: no data set is read in "
                       "order, so there is nothing to partition", drawn.line)
    return _unread_partition(f, "a partition of the training data") or _unread_sampler(f) or Finding(
        MISSING, "every rank trains on the whole data set each epoch", None,
        "shard: DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.rank()) / ds.shard(hvd.size(), hvd.rank()), "
        "or divide steps per epoch by hvd.size()")


def _drawn_per_rank(f):
    """The event of a random draw that picks the training samples at every step on each rank: a generator
    object made with a seed of the rank (`rng = np.random.RandomState(1234 + hvd.rank())`) draws, in a loop
    around the optimizer steps, indices the code then reads the data by (`idx = rng.choice(...)`; `X[idx]`,
    `idx[:k_shot]`): episodes or batches sampled i.i.d. per rank, the meta-learning idiom. None when there is
    none."""
    stepping = {id(lp) for s in f.steps for lp in s.ctx.loops}
    for e in f.s.events:
        func = e.node.func
        # a pick from a population (an array of indices, the classes), not a number in a range (a crop's offset)
        if not (e.ctx.reached and isinstance(func, ast.Attribute) and func.attr in names.POPULATION_PICKS
                and e.node.args and not isinstance(e.node.args[0], ast.Constant)
                and stepping & {id(lp) for lp in e.ctx.loops}):
            continue
        target = assigned_name(e.node)
        holder = enclosing_def(e.node)
        maker = _generator_maker(f, func.value, e)
        if target and holder is not None and maker is not None and f.mentions(maker, f.is_rank) and any(
                isinstance(n, ast.Subscript) and any(isinstance(m, ast.Name) and m.id == target for m in ast.walk(n))
                for n in ast.walk(holder)):
            return e
    return None


def _unread_sampler(f):
    """Finding(cannot tell) when the script calls `set_epoch` (a DistributedSampler's method) on an object that
    code that could not be read made (`train_loader, val_loader, sampler = make_loaders(cfg)` of a module that
    is not there), or on the sampler of a loader such code made (`train_loader.sampler.set_epoch(epoch)`): that
    code builds a distributed sampler, which may partition the data; else None."""
    for e in f.s.events:
        func = e.node.func
        if not (e.ctx.reached and isinstance(func, ast.Attribute) and func.attr == "set_epoch"):
            continue
        receivers = [func.value] + ([func.value.value] if isinstance(func.value, ast.Attribute) and
                                    func.value.attr == "sampler" else [])
        made = [c for r in receivers for o in f.origins(r) for c in ast.walk(o)
                if isinstance(c, ast.Call) and f.s.of_unread_project_code(c.func)]
        if made:
            return Finding(UNKNOWN, f"line {e.line} calls set_epoch, a DistributedSampler's method, on what "
                           f"`{ast.unparse(made[0].func)}(...)` made (line {made[0].lineno}), code that could not be "
                           "read: it may partition the data: cannot tell", e.line, "make that code readable (give "
                           "--root the project's folder) or run `hvdkit check --run`")
    return None


def _by_local_rank(f, node):
    """The value of `node` is computed from the local rank, other than through a device it is placed on
    (`probs = predict(model, data, device)` with `device = torch.device("cuda", hvd.local_rank())`: the same
    values on every rank; held.placed)."""
    return f.mentions(node, lambda n: f.is_local_rank(n) and not placed(f, n))


def _round_robin_tests(f):
    """Tests that keep the items whose index modulo the number of ranks is this rank (`i % world == rank`,
    `tf.equal(i % hvd.size(), hvd.rank())`), where they pick data: in a function handed to a `filter` (tf.data's
    or Python's) or in a comprehension's condition. Round-robin dealing is a partition."""
    out = []
    for node in f.s.nodes():
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.Eq):
            pair = [node.left, node.comparators[0]]
        elif isinstance(node, ast.Call) and f.s.qual(node.func).split(".")[-1] == "equal" and len(node.args) == 2:
            pair = list(node.args)
        else:
            continue
        mod = next((x for x in pair if isinstance(x, ast.BinOp) and isinstance(x.op, ast.Mod)), None)
        other = next((x for x in pair if x is not mod), None)
        if mod is None or not f.mentions(mod.right, f.is_size) or not f.mentions(other, f.is_rank):
            continue
        holder = next((p for p in parents(node) if isinstance(p, (ast.Lambda, ast.FunctionDef, ast.comprehension))),
                      None)
        if isinstance(holder, ast.comprehension) and any(node is c or node in ast.walk(c) for c in holder.ifs):
            out.append(node)
        elif isinstance(holder, ast.Lambda) and isinstance(getattr(holder, "parent", None), ast.Call) and \
                f.s.qual(holder.parent.func).split(".")[-1] == "filter":
            out.append(node)
    return out


def _made_by_absent_code(f):
    """The first call into the project's own code that is not there (or does not parse) whose result the
    training reads its data from (`train_ds = make_dataset(texts, labels, ...)` of an absent module): an
    Unread, else None."""
    absent = {id(u.event.node): u for u in f.unread_on_path if u.kind in ("absent", "unparsed")}
    # nearest the data first (sources() walks back from what the training reads)
    return next((absent[id(n)] for n in sources(f, list(f.flows.inputs), derived) if id(n) in absent), None)


def _unread_partition(f, what):
    """Finding(cannot tell) when code that could not be read makes or is handed the training data and could know
    the rank and the size (Facts.unread_for): it may partition the data; else None."""
    unread = {id(u.event.node) for u in f.unread_on_path}

    def chain(call):
        """Data built step by step through a library's calls: the receiver and the first argument
        (`ds.shuffle(n).batch(b)`, `DataLoader(ds, ...)`), not every option given (a path, a batch size); a
        call into code not read makes the data itself (what it is handed is its input, a configuration)."""
        if id(call) in unread:
            return []
        return ([call.func.value] if isinstance(call.func, ast.Attribute) else []) + call.args[:1]
    found = f.unread_finding(what, 3, f.flows.inputs, chain)
    if found is not None:
        return found
    # The training runs in the project's own code that is not there (a Trainer whose fit() is not read): that
    # code may read the rank itself (its module imports Horovod as the script does) and partition the data.
    made = [u for u, _ in unread_training(f) if u.kind in ("absent", "unparsed")]
    if made:
        return Finding(UNKNOWN, f"{what} not seen in the code read; the training runs in code that could not be "
                       f"read, which may partition the data: {'; '.join(f.describe(u) for u in made[:2])}: cannot "
                       "tell", made[0].line, "make that code readable (give --root the project's folder) or run "
                       "`hvdkit check --run`")
    return None


_TRAINING_CALLS = ("fit", "fit_generator", "evaluate", "predict", "compile", "train_on_batch", "test_on_batch")


def _loader_given_rank(f, e):
    """A library loader told the number of ranks and this rank (KerasSequenceLoader(global_size=, global_rank=),
    make_torch_dataloader(cur_shard=, shard_count=)): it reads this rank's part."""
    if f.s.qual(e.node.func).split(".")[-1] in _TRAINING_CALLS:
        return False  # fit(..., verbose=1 if hvd.rank() == 0 else 0, callbacks=[...hvd.size()...]) reads no part
    kw = [k.value for k in e.node.keywords if k.arg and k.arg not in ("verbose", "callbacks")]
    ranks = [v for v in kw if f.mentions(v, f.is_rank) and not f.mentions(v, f.is_global_size)]
    sizes = [v for v in kw if f.mentions(v, f.is_global_size) and not f.mentions(v, f.is_rank)]
    return bool(ranks) and bool(sizes)  # two keywords: how many parts, and which one is this rank's


def _rank_ignored(f, e):
    """The call runs the project's own code, which never uses the rank it is handed: the parameter is not read,
    or only stored on the instance in attributes nothing reads (`self.rank = rank` in a sampler whose batches
    are drawn alike on every rank). Judged by the code the walk entered at this call."""
    frame = next(iter(f.s.frames_of_call(e.node)), None)
    if frame is None:
        return False
    ranks = [p for p, b in frame.bindings.items() if not b.default and f.mentions(b.expr, f.is_rank)]
    if not ranks:
        return False
    func = frame.func
    cls = func.parent if isinstance(getattr(func, "parent", None), ast.ClassDef) else None
    # the class with its bases and the classes deriving from it: a subclass's __iter__ may read `self.rank`
    bodies = list(f.s._family(cls)) if cls is not None else [func]
    for param in ranks:
        reads = [n for n in ast.walk(func) if isinstance(n, ast.Name) and n.id == param and isinstance(n.ctx, ast.Load)]
        stored = [_kept_on_self(n) for n in reads]
        if None in stored:
            return False  # read for something else than keeping it
        if any(isinstance(n, ast.Attribute) and n.attr in stored and isinstance(n.ctx, ast.Load)
               for b in bodies for n in ast.walk(b)):
            return False
    return True


def _kept_on_self(name):
    """The attribute `self.<attr> = name` (or `self.a, self.b = x, name`) stores the name in; None when the name
    is read otherwise."""
    stmt = getattr(name, "parent", None)
    targets = bound_targets(name) or (stmt.targets if isinstance(stmt, ast.Assign) and stmt.value is name else [])
    if len(targets) == 1 and isinstance(targets[0], ast.Attribute) and dotted(targets[0].value) == "self":
        return targets[0].attr
    return None


def _per_rank_file(f, e, rank=None):
    """Data read from a file whose name holds the rank (`rank`: the query that says so, by default the global
    rank): a partition made offline, one file per rank. Decided by
    what the content is used for: it reaches the training (or evaluation) data; weights given to a model are a
    per-rank checkpoint. Where the flow reaches neither (the content goes into code not read), a reader's name
    says it is data (a documented fallback: names.DATA_SOURCES; torch.load, which reads both, must be seen
    feeding the data)."""
    q = f.s.qual(e.node.func)
    last = q.split(".")[-1]
    if ".datasets." in q or q.startswith("datasets."):
        return False  # keras.datasets.x.load_data(path=f"x-{rank}.npz"): a per-rank download cache, same data
    if last == "open" and len(e.node.args) > 1 and not (isinstance(e.node.args[1], ast.Constant)
                                                         and "r" in str(e.node.args[1].value)):
        return False  # a file opened for writing (a per-rank log)
    seen = flows(f)
    flowing = id(e.node) in seen.train or id(e.node) in seen.evaluation
    reader = names.DATA_SOURCES.match(last) or last in ("open", "load", "loadtxt", "read_csv", "read_parquet")
    if not flowing and not reader:
        return False
    rank = rank or f.is_rank
    given = e.node.args[:1] + [k.value for k in e.node.keywords if k.arg in ("file", "path", "filename")]
    # the path's own value is built from the rank (`f"x-{rank}.npz"`, `prefix + str(rank)`), not only looked up
    # by a key that holds it (`dirs[f"train_{local_rank}"]`: a folder the launcher gives each node)
    named = any(_path_text(f, p) and any(rank(n) for n in _path_parts(f, [p])) for p in _path_parts(f, given))
    if not named or _loads_weights(f, e):
        return False
    if flowing:
        return True
    return _feeds_data(f, e) if q.startswith("torch.") else True


def _path_parts(f, exprs):
    """What the path values `exprs` are built from: sources() through names, the script's own functions and the
    calls that build strings and paths (os.path.join, str, format, pathlib), not other calls (a device given
    to torch.load, a broadcast) and not the keys a value is looked up by (`dirs[f"train_{local_rank}"]` is one
    of the folders `dirs` holds, given per node)."""
    def builds(call):
        q = f.s.qual(call.func)
        if q in _PATH_BUILDERS or getattr(call.func, "attr", "") in ("format", "joinpath"):
            return ([call.func.value] if isinstance(call.func, ast.Attribute) else []) + call.args
        return []
    return sources(f, exprs, builds)


_PATH_BUILDERS = ("os.path.join", "posixpath.join", "str", "pathlib.Path", "pathlib.PurePath", "os.fspath")


def _path_text(f, n):
    """A string built from parts: an f-string, "x-%d" % r, "x-" + str(r), "x-{}".format(r), os.path.join(...)."""
    if isinstance(n, ast.JoinedStr):
        return True
    if isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Mod, ast.Add)):
        return any(isinstance(c, ast.Constant) and isinstance(c.value, str) for c in (n.left, n.right))
    if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "format":
        return isinstance(n.func.value, ast.Constant) and isinstance(n.func.value.value, str)
    return isinstance(n, ast.Call) and f.s.qual(n.func) in ("os.path.join", "pathlib.Path")


WEIGHT_SINKS = ("load_state_dict", "load_weights", "set_weights", "restore", "load_checkpoint")


def _result_names(f, e):
    """Names holding a call's result, and names assigned from expressions using them."""
    stmt = next((p for p in parents(e.node) if isinstance(p, ast.stmt)), None)
    start = set()
    if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        start = {dotted(n) for t in targets for n in ast.walk(t) if isinstance(n, (ast.Name, ast.Attribute))}
    start.discard(None)
    return _derived(f, start) if start else set()


def _used_in(f, e, held, call_pred):
    """Some call for which call_pred holds takes the result: directly, or through a name holding it."""
    if any(isinstance(p, ast.Call) and call_pred(p) for p in parents(e.node)):
        return True
    return any(call_pred(x.node) and any(_mentions_name(f, a, held) for a in x.node.args + [
        k.value for k in x.node.keywords]) for x in f.s.events if x.node is not e.node) if held else False


def _loads_weights(f, e):
    return _used_in(f, e, _result_names(f, e), lambda c: getattr(c.func, "attr", "") in WEIGHT_SINKS)


def _feeds_data(f, e):
    """The result reaches the data: a Dataset/DataLoader made of it, a loop over it, or next()/iter() on it."""
    held = _result_names(f, e)
    source = lambda c: names.DATA_SOURCES.match(f.s.qual(c.func).split(".")[-1] or "") is not None  # noqa: E731
    if _used_in(f, e, held, lambda c: source(c) or f.s.qual(c.func) in ("next", "iter")):
        return True
    loops = (n.iter for n in f.s.nodes() if isinstance(n, (ast.For, ast.comprehension)))
    return bool(held) and any(_mentions_name(f, it, held) for it in loops)


def _branches_by_rank(f):
    """Data chosen by hand in branches on the rank (`if hvd.rank() == 0: data = a ... elif hvd.rank() == 1:
    data = b`): two or more branches, each for a different rank, each assigning a value the training reads
    (or assigning one and training in the branch)."""
    picks, train = [], flows(f).train
    for node in f.s.nodes():
        if not isinstance(node, ast.If) or not f.mentions(node.test, f.is_rank):
            continue
        if not (isinstance(node.test, ast.Compare) and isinstance(node.test.ops[0], ast.Eq)):
            continue
        const = [c.value for c in [node.test.left] + node.test.comparators if isinstance(c, ast.Constant)]
        assigned = [a for b in node.body for a in ast.walk(b) if isinstance(a, (ast.Assign, ast.AnnAssign))]
        # the value reaches the training data, or the branch both picks a value and trains
        trains_here = any(any(g.test is node.test and g.branch for g in s.ctx.guards) for s in f.steps)
        feeds = any(id(a.value) in train for a in assigned) or assigned and trains_here
        if const and feeds:
            picks.append((const[0], node))
    if len({c for c, _ in picks}) >= 2:
        return [NodeAt(picks[0][1])]
    return []


def _random_picks(f):
    """Calls that pick a random subset or split of the data: [(event, its count argument or None)]. A library's
    (numpy's, torch's, sklearn's), not a function of the project spelled like one (`random_split(n, frac,
    seed)` of its own data module): the walk reads that function's draws themselves, or cannot read them."""
    out = []
    for e in f.s.events:
        q = f.s.qual(e.node.func)
        last = q.split(".")[-1]
        if last in names.RANDOM_PICKS and ("random" in q or last in ("train_test_split", "random_split", "randperm")) \
                and not f.local_function(e.node) and not (
                    f.s.of_unread_project_code(e.node.func) and "random" not in q.rpartition(".")[0]) \
                and not _made_up_values(e.node, last):
            out.append(e)
    return out


def _made_up_values(call, last):
    """`np.random.randint(0, 10, size=n)`: random values between constant bounds (synthetic labels or pixels),
    no indices into a data set: nothing of the data is picked."""
    bounds = call.args[:2] if last == "randint" else []
    return bool(bounds) and all(isinstance(b, ast.Constant) or isinstance(b, ast.UnaryOp) and
                                isinstance(b.operand, ast.Constant) for b in bounds)


def _seeded(f, e):
    """The pick is the same on every rank: a seed keyword, no shuffling at all (train_test_split(...,
    shuffle=False)), a generator object made with a seed not of the rank (its own seed decides, whatever the
    global one: `rng = np.random.default_rng(cfg.seed)`), or a constant global seed set before it."""
    if any(k.arg in ("random_state", "seed", "generator", "rng") for k in e.node.keywords):
        return True
    if any(k.arg == "shuffle" and isinstance(k.value, ast.Constant) and k.value.value is False
           for k in e.node.keywords):
        return True
    receiver = e.node.func.value if isinstance(e.node.func, ast.Attribute) else None
    maker = _generator_maker(f, receiver, e) if receiver is not None else None
    if maker is not None:  # a generator object's draw: its own seed decides, not a global one
        return bool(maker.args or maker.keywords) and not f.mentions(maker, f.is_rank)
    drawn = _generator(f.s.qual(e.node.func))
    for s in f.s.events:
        q = f.s.qual(s.node.func)
        if s.order < e.order and q.split(".")[-1] in names.SEEDERS and s.node.args and \
                q.split(".")[0] in ("torch", "tensorflow", "keras", "numpy", "random", "sklearn") and \
                not f.mentions(s.node.args[0], f.is_rank) and (drawn is None or drawn in _seeds(q)):
            return True
    return False


def _generator_maker(f, receiver, at):
    """The call of a generator class that made the object a draw is called on (`self.rng =
    np.random.RandomState(seed)`, `np.random.RandomState(0).permutation(n)`), through names, attributes and
    parameters to the value itself, not through what a value is made of (`ds.shuffle(n)` of a tf.data set over
    arrays an `rng` drew is no draw of that rng); None when no such call made it."""
    todo, seen = [(receiver, at)], set()
    while todo and len(seen) < 50:
        n, a = todo.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        if isinstance(n, ast.Call) and f.s.qual(n.func).split(".")[-1] in names.GENERATOR_CLASSES:
            return n
        if isinstance(n, (ast.Name, ast.Attribute)):
            todo += reaching(f, n, a)
    return None


def _generator(q):
    """Whose global random generator a library's draw uses: Python's `random` module, NumPy's (sklearn's
    shuffles without random_state too), torch's, TensorFlow's; None when not known (a method of an object)."""
    top = q.split(".")[0]
    return {"random": "python", "numpy": "numpy", "sklearn": "numpy", "torch": "torch", "tensorflow": "tensorflow",
            "keras": "tensorflow"}.get(top) if "." in q else None


def _seeds(q):
    """The global generators a seeding call seeds: random.seed Python's, np.random.seed NumPy's, torch.manual_seed
    torch's, tf.random.set_seed TensorFlow's; Keras' set_random_seed all three (Python, NumPy, TensorFlow)."""
    if q.split(".")[-1] == "set_random_seed" and ".utils." in q:
        return {"python", "numpy", "tensorflow"}
    return {_generator(q)}


# Shuffles of a whole data set: value-returning (a permutation, a shuffled copy, tf.data's shuffle, list_files,
# which shuffles the file names unless told not to) and in place (random.shuffle(x), np.random.shuffle(x)).
_SHUFFLES = ("permutation", "randperm", "shuffle", "list_files")


def _shuffled_before_partition(f, parts):
    """The data is shuffled on each rank without a common seed, then partitioned: each rank splits its own
    permutation, so the parts overlap and together miss part of the data."""
    for p in parts:
        data = _partitioned(f, p)
        if data is None:
            continue
        made = sources(f, [data], derived)
        held = {dotted(n) for n in made if isinstance(n, (ast.Name, ast.Attribute))} - {None}
        at = p if hasattr(p, "order") else _event_at(f, p.node)
        entry = _entering_call(f, p.node) if at is None else None
        inner = {id(n) for n in ast.walk(p.node) if isinstance(n, ast.Call)}
        for e in f.s.events:
            # a partition in a `return` has no event: a shuffle earlier in its function, before its call, or in
            # a call its own value makes (`return list_items(items, shuffle=True)[rank::world]`)
            earlier = (_before(e, at) if at is not None else _earlier_in_function(e.node, p.node) or (
                entry is not None and _before(e, entry))) or any(id(fr.call) in inner for fr in e.ctx.frames)
            if not earlier or not _shuffle(f, e) or _drawn_alike(f, e):
                continue  # a shuffle after the partition shuffles each rank's own part: right
            in_place = result_discarded(e.node) and e.node.args and dotted(e.node.args[0]) in held
            if any(n is e.node for n in made) or in_place:
                line = e.node.func.end_lineno if isinstance(e.node.func, ast.Attribute) else e.line
                options = _off_default(f, e)  # a shuffle only with an option on: wrong with it, named
                return Finding(WRONG, (f"with {', '.join(options)}: " if options else "") +
                               f"line {line} shuffles the data on each rank without a common seed "
                               f"({f.text(line)}) before the partition at line {p.line}: each rank splits its own "
                               "permutation, so the parts overlap and together miss part of the data", line,
                               "seed the shuffle alike on every rank (seed=42), or partition first and shuffle "
                               "each rank's part")
    return None


def _entering_call(f, node):
    """The walked call of the function that holds `node` (`shard_files(files, rank, size)` for the partition in
    its `return files[rank::size]`): where the partition happens in the walk."""
    func = enclosing_def(node)
    calls = {id(fr.call) for fr in f.s.frames if fr.func is func and fr.call is not None}
    return next((e for e in f.s.events if id(e.node) in calls), None) if func is not None else None


def _earlier_in_function(node, part):
    """`node` comes before `part` in the body of the function that holds both (a partition in a `return`
    statement, which the walk records no event for: `random.shuffle(items)` then `return items[rank::world]`)."""
    func = enclosing_def(node)
    return func is not None and func is enclosing_def(part) and node.lineno < part.lineno


def _before(a, b):
    """Event a runs before event b: in the same call of the function both are in (not a shuffle of one call of
    make_dataset before the shard of the next call), or earlier in the walk when in different functions."""
    fa = a.ctx.frames[-1] if a.ctx.frames else None
    fb = b.ctx.frames[-1] if b.ctx.frames else None
    same_function = (fa.func if fa else None) is (fb.func if fb else None)
    return a.order < b.order and (not same_function or fa is fb)


def _partitioned(f, p):
    """The data a partition splits: the receiver of .shard(), a sampler's data set, the sliced value."""
    node = p.node
    if isinstance(node, ast.Subscript):
        return node.value
    if not isinstance(node, ast.Call):
        return None
    if getattr(node.func, "attr", "") == "shard":
        return node.func.value
    if f.s.qual(node.func).split(".")[-1] in names.SAMPLERS:
        return next(iter(node.args[:1] + [k.value for k in node.keywords if k.arg == "dataset"]), None)
    return None


def _shuffle(f, e):
    q = f.s.qual(e.node.func)
    last = q.split(".")[-1]
    if last not in _SHUFFLES or not e.ctx.reached or not _library(f, e.node):
        return False
    if last == "list_files":
        kw = {k.arg: k.value for k in e.node.keywords}
        off = kw.get("shuffle", e.node.args[1] if len(e.node.args) > 1 else None)
        return not (isinstance(off, ast.Constant) and off.value is False)
    # np.random.permutation, torch.randperm, random.shuffle, rng.shuffle, sklearn.utils.shuffle, tf.data's
    # ds.shuffle(buffer), a generator object's permutation (`rng = np.random.default_rng(seed)`)
    return "random" in q or q.startswith(("torch.", "sklearn.")) or isinstance(e.node.func, ast.Attribute) and (
        last == "shuffle" or _generator_maker(f, e.node.func.value, e) is not None)


def _unread_split(f, e):
    """The calls into code that could not be read whose values a split is given (`DistributedSampler(ds,
    num_replicas=dist_utils.get_world_size(), rank=dist_utils.get_rank())` with dist_utils not there): [Unread]."""
    unread = {id(u.event.node): u for u in f.s.unread}
    given = e.node.args[1:] + [k.value for k in e.node.keywords] if isinstance(e.node, ast.Call) else []
    found = {}

    def note(n):  # collects every unread call the values come from (never stops the walk)
        if isinstance(n, ast.Call) and id(n) in unread:
            found.setdefault(id(n), unread[id(n)])
        return False
    for g in given:
        f.mentions(g, note)
    return list(found.values())


def _library(f, call):
    """The call runs a library's function, not the project's own (`list_files` of the script's data module: its
    code is walked, a shuffle in it is seen there) nor one of a module that is not there (its code is unknown)."""
    if f.local_function(call):
        return False
    module = imported(f, call.func)
    top = module.split(".")[0] if module else None
    return top is None or f.s.project.find(top) is None and f.s.project.kind(top) != "absent"


def _drawn_alike(f, e):
    """Seeded the same on every rank: a seed argument that does not depend on the rank, a seeded generator,
    or a global seed set before (also not by the rank)."""
    seed = next((k.value for k in e.node.keywords if k.arg in ("random_state", "seed", "generator", "rng")), None)
    if seed is not None:  # by its value's flow (`cfg.seed + 100 * state.round + ep`), not what its names touch
        return not depends_on_rank(f, seed, e)
    return _seeded(f, e)


def _draw_count(f, e):
    """How many items a random pick draws: randint(low, high, size) draws `size` (its high is the range, not a
    count: random batch indices into this rank's shard are no subset of the data), choice(a, size) and
    sample(population, k) their second argument."""
    position, keyword = (2, "size") if f.s.qual(e.node.func).endswith("randint") else (1, "size")
    if len(e.node.args) > position:
        return e.node.args[position]
    return next((k.value for k in e.node.keywords if k.arg in (keyword, "k")), None)


def _from_own_part(f, e):
    """The draw picks from this rank's own part: the population it draws from (`len(tokens)` of randint's range,
    choice's array) is made of a slice by the rank (`tokens = stream[rank * span:(rank + 1) * span]`). Random
    batch positions inside a disjoint part are no subset of the whole data."""
    q = f.s.qual(e.node.func).split(".")[-1]
    args = e.node.args[:2] if q == "randint" else e.node.args[:1]
    pops = [n.args[0] for a in args for n in ast.walk(a) if isinstance(n, ast.Call) and f.s.qual(n.func) == "len"
            and n.args] if q == "randint" else args
    return any(f.mentions(p, f.is_rank) for p in pops)


def _overlapping_subsets(f, picked, parts):
    """Each rank draws its own random subset (or split) of the data: the ranks' parts overlap."""
    for e in picked:
        if _is_eval(f, e) or not e.ctx.reached:
            continue
        count = _draw_count(f, e)
        if count is not None and f.mentions(count, f.is_size) and not f.mentions(e.node, f.is_rank) \
                and not _from_own_part(f, e) \
                and not (_seeded(f, e) and f.s.qual(e.node.func).split(".")[-1] == "permutation"):
            return Finding(WRONG, f"line {e.line}: each rank draws its own random 1/size of the data "
                           f"({f.text(e.line)}): the ranks' subsets overlap and together miss part of the data",
                           e.line, "shard instead: a DistributedSampler / ds.shard(hvd.size(), hvd.rank()), or one "
                           "permutation seeded alike on every rank, sliced [hvd.rank()::hvd.size()]")
        target = assigned_name(e.node) or _tuple_targets(e.node)
        if parts and target and not _seeded(f, e) and f.s.qual(e.node.func).split(".")[-1] != "permutation":
            names_ = {target} if isinstance(target, str) else set(target)
            used = [p for p in parts if hasattr(p, "node") and _mentions_name(f, p.node, names_ | _derived(f, names_))]
            if used:
                return Finding(WRONG, f"line {e.line} splits the data at random on every rank without a common seed "
                               f"({f.text(e.line)}): the sampler at line {used[0].line} partitions a different "
                               "subset on each rank, so the shards overlap", e.line,
                               "seed the split alike on every rank (random_state=42), or split once before training")
    return None


def _tuple_targets(call):
    parent = getattr(call, "parent", None)
    if isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Tuple):
        return [dotted(t) for t in parent.targets[0].elts if dotted(t)]
    return None


def _derived(f, start):
    out, changed = set(start), True
    while changed:
        changed = False
        for a in f.s.assigns:
            t = a.node.targets[0] if isinstance(a.node, ast.Assign) else a.node.target
            name = dotted(t)
            if name and name not in out and a.node.value is not None and _mentions_name(f, a.node.value, out):
                out.add(name)
                changed = True
    return out


def _copies(f):
    """`[ds.take(n) for _ in range(k)]` then indexed by the rank: k copies of the same part."""
    for node in f.s.nodes():
        if not isinstance(node, ast.ListComp) or len(node.generators) != 1:
            continue
        loop_names = {n.id for n in ast.walk(node.generators[0].target) if isinstance(n, ast.Name)}
        uses = {n.id for n in ast.walk(node.elt) if isinstance(n, ast.Name)}
        if loop_names & uses or not isinstance(node.elt, ast.Call):
            continue
        if getattr(node.elt.func, "attr", "") not in ("take", "skip", "shard", "batch", "copy"):
            continue
        func = enclosing_def(node)
        holder = assigned_name(node) if func is None else func.name
        for sub in f.s.nodes():
            if isinstance(sub, ast.Subscript) and f.mentions(sub.slice, f.is_rank) and holder and \
                    holder in {dotted(n) for n in ast.walk(sub.value)} | _called_names(f, sub.value):
                return node
    return None


def _called_names(f, node):
    out = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            for a in f.s.assignments_to(n.id):
                v = a.node.value
                if isinstance(v, ast.Call) and isinstance(v.func, ast.Name):
                    out.add(v.func.id)
    return out


def _rank_seeded_sampler(f, parts):
    """A DistributedSampler (or ElasticSampler) of the training data that shuffles with a seed made from the
    rank: it partitions a permutation of its own seed, so each rank's permutation differs and the parts are
    not disjoint. A sampler that does not shuffle (`shuffle=False`) takes no permutation."""
    for e in parts:
        if not isinstance(e.node, ast.Call) or f.s.qual(e.node.func).split(".")[-1] not in names.SAMPLERS or \
                id(e.node) not in flows(f).train:
            continue
        kw = {k.arg: k.value for k in e.node.keywords}
        shuffle = kw.get("shuffle")
        if isinstance(shuffle, ast.Constant) and shuffle.value is False:
            continue
        seed = kw.get("seed")
        if seed is not None and f.mentions(seed, f.is_rank):
            return e
    return None


def _sampler_and_shuffle(f):
    """DataLoader(sampler=s, shuffle=True) with s a sampler on some path (not None on every one)."""
    for e in f.s.events:
        if f.s.qual(e.node.func).split(".")[-1] != "DataLoader":
            continue
        kw = {k.arg: k.value for k in e.node.keywords}
        sh = kw.get("shuffle")
        if "sampler" in kw and isinstance(sh, ast.Constant) and sh.value is True and \
                any(isinstance(n, ast.Call) for n in sources(f, [kw["sampler"]])):
            return e
    return None


def _cap_on_finite_data(f, division):
    """take(n // size) on a data set that is never repeat()ed: the cap, not a partition, is what was meant."""
    call = next((p for p in parents(division) if isinstance(p, ast.Call)), None)
    if call is None or getattr(call.func, "attr", "") != "take":
        return None
    receiver = call.func.value
    repeats = lambda n: isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "repeat"  # noqa: E731
    if f.mentions(receiver, repeats) or any(repeats(n) for n in f.s.nodes()):
        return None
    # The data set may come back from a helper (a dict of data sets): any tf.data source with no repeat()
    # anywhere in the script is finite.
    for node in f.s.nodes():
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") in (
                "from_tensor_slices", "from_generator", "list_files", "TFRecordDataset"):
            return node
    return None


def _has_data(f, fits=True):
    """A data set is read: fit is given data (with `fits`), or a data source is called."""
    if fits and any(e.node.args or any(k.arg == "x" for k in e.node.keywords) for e in f.fits):
        return True
    return any(names.DATA_SOURCES.match(f.s.qual(e.node.func).split(".")[-1]) or ".datasets." in f.s.qual(e.node.func)
               for e in f.s.events)


def _random_batch(f):
    """A random tensor shaped by the batch size: a benchmark's single synthetic batch. Not one made inside a
    loop over a data set (in the step that loop calls): that is noise, a latent vector or augmentation."""
    for e in f.s.events:
        if random_maker(f, e.node) and not any(over_data(f, loop) for loop in e.ctx.loops):
            if any(re.search(r"batch", ast.unparse(a), re.I) for a in e.node.args[:1] + e.node.args[1:2]):
                return e
    return None


def _off_default(f, part):
    """The options without which a partition is not made ([] when it is made on the default run): its
    guards and the conditional expressions around it (`RandomSampler(ds) if args.local_rank == -1 else
    DistributedSampler(...)` with --local_rank -1 by default)."""
    event = part if isinstance(part, Event) else _event_at(f, part.node)
    if event is None:
        return []
    ctx, child = event.ctx, part.node
    for p in parents(part.node):
        if isinstance(p, ast.stmt):
            break
        if isinstance(p, ast.IfExp) and child is not p.test:
            ctx = ctx.with_(guard=(p.test, child is p.body))
        child = p
    event = Event(part.node, event.qual, ctx, event.order)
    skip = f.path_guards(event)
    if values.runs(f.s, event, skip, defaults=True).kind != "never":
        return []
    return values.off_by_default(f.s, event, skip) or ["a condition false by default"]


def _event_at(f, node):
    """The walked event (call or assignment) whose statement holds `node`."""
    stmt = next((p for p in [node, *parents(node)] if isinstance(p, ast.stmt)), None)
    return next((e for e in f.s.events + f.s.assigns if stmt is not None and
                 (e.node is stmt or next((p for p in parents(e.node) if isinstance(p, ast.stmt)), None) is stmt)),
                None)


def _is_eval(f, e):
    """The partition feeds evaluation only: its value reaches what the script evaluates (evaluate/predict,
    fit's validation_data, a loop with no optimizer step that builds nothing) and not what the optimizer steps
    consume. When the walk sees it reach neither (it goes into code not read), the names say (a documented
    fallback: val/test/eval/dev in the name it is assigned to or the data it splits)."""
    seen, node = flows(f), e.node
    made_by = _factory_calls(f, e)
    if made_by is not None:  # one factory called for training and again for evaluation: by this call's use
        return not made_by[0] and any(made_by[1:])
    if id(node) in seen.train:
        return False
    if id(node) in seen.evaluation:
        return True
    if isinstance(node, ast.Subscript):
        return False  # x[rank::size]: a part of the training data unless it is seen to feed evaluation alone
    parent = getattr(node, "parent", None)
    if isinstance(node, ast.Call) and f.s.qual(node.func) != "range":
        text = (assigned_name(node) or "") + " " + " ".join(ast.unparse(a) for a in node.args[:1])
    else:  # range(rank, n, size): the statement it is part of
        text = ast.unparse(parent) if parent is not None else ""
    return bool(names.EVAL_NAMES.search(text))


def _factory_calls(f, e):
    """For a partition made inside a function the walk entered at several calls (`make_loader(train=True)`
    and `make_loader(train=False)`): [does this call feed the training loop, does each other call]; None when
    it is made at one call only, or outside functions."""
    if not isinstance(e, Event) or not e.ctx.frames:
        return None
    return f.memo(("step3.factory_calls", id(e)), lambda: _factory_calls_of(f, e))


def _factory_calls_of(f, e):
    others = [o for o in f.s.events if o.node is e.node and o is not e and o.ctx.frames]
    if not others:
        return None
    return [_feeds_training_loop(f, x.ctx.frames[-1].call) for x in [e] + others]


def _feeds_training_loop(f, call):
    """What `call` returns is assigned to a name the training loop reads (`train_loader, sampler =
    make_loader(...)`, then `for x, y in train_loader`), by the names' definitions."""
    stmt = getattr(call, "parent", None)
    if not isinstance(stmt, ast.Assign) or stmt.value is not call:
        return False
    targets = {id(n) for t in stmt.targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return any(id(d) in targets for i in f.flows.inputs for n in ast.walk(i) if isinstance(n, ast.Name)
               for d in f.s.reaching(n) or ())


def _sampler_used(f, e):
    """The sampler reaches a loader's `sampler=` / `batch_sampler=`: through names, containers (a dict of
    samplers built in a comprehension and passed as `sampler=samplers[split]`), parameters and the script's
    own functions. One given to a loader as its data set is used too, wrongly (judge() says so first)."""
    given = _sampler_as_data(f)
    if given is not None and given[1].node is e.node:
        return True
    if _factory_calls(f, e) is not None:
        # a factory called more than once that makes the sampler and the loaders: this call's loaders decide
        # (`make_loader(ds, train=True)` that builds a sampler and then, for training, `DataLoader(ds,
        # shuffle=True)` without it), leaving out those its branches keep from running in this call
        frame = e.ctx.frames[-1]
        mine = [o for o in f.s.events if o.ctx.frames and o.ctx.frames[-1] is frame and f.runs(o).rank0 is not False]
        if any(f.s.qual(o.node.func).split(".")[-1] == "DataLoader" for o in mine):
            return any(n is e.node for n in sources(f, _sampler_sinks(f, mine)))
    return any(n is e.node for n in sources(f, _sampler_sinks(f)))


def _given_sampler(f, other):
    """What one loader call is given as its sampler (`sampler=`, `batch_sampler=`, or positional)."""
    out = [k.value for k in other.node.keywords if k.arg in ("sampler", "batch_sampler")]
    return out + other.node.args[3:5] if f.s.qual(other.node.func).split(".")[-1] == "DataLoader" else out


def _sampler_sinks(f, events=None):
    """What the script gives DataLoaders as their sampler (`sampler=`, `batch_sampler=`, or positional), and
    batch samplers the sampler they group (torchvision's references: `BatchSampler(train_sampler, ...)`); of
    `events` only, when given."""
    out = []
    for other in f.s.events if events is None else events:
        out += _given_sampler(f, other)  # DataLoader(dataset, batch_size, shuffle, sampler, batch_sampler, ...)
        name = f.s.qual(other.node.func).split(".")[-1]
        if name.endswith("BatchSampler") and not _off_default(f, other):
            out += other.node.args[:1]  # BatchSampler(sampler, batch_size, drop_last), given as batch_sampler=
    return out


def _sampler_as_data(f):
    """A sampler given to a DataLoader as its data set: the loader indexes the sampler (TypeError at the first
    batch), and no rank reads its part."""
    samplers = {id(e.node): e for e in f.s.events if f.s.qual(e.node.func).split(".")[-1] in names.SAMPLERS}
    for e in f.s.events:
        if samplers and f.s.qual(e.node.func).split(".")[-1] == "DataLoader":
            data = e.node.args[:1] + [k.value for k in e.node.keywords if k.arg == "dataset"]
            given = next((samplers[id(n)] for n in sources(f, data) if id(n) in samplers), None)
            if given is not None:
                return e, given
    return None


def _divided_steps(f):
    """Divisions by hvd.size() whose value sets how many steps (or epochs) a rank takes: it reaches a step
    count (`steps_per_epoch=`, `epochs=`, ...), a take()/islice()/range() bound, or the test that ends a loop
    around the optimizer steps (`if i >= steps: break`, `while step < steps:`)."""
    steps, epochs = _count_sinks(f)
    made = {id(n) for n in sources(f, steps + epochs, _numeric(f))}
    return [n for n in f.s.nodes() if id(n) in made and isinstance(n, ast.BinOp)
            and isinstance(n.op, (ast.Div, ast.FloorDiv)) and f.mentions(n.right, f.is_size)] + _counted(f, steps)


def _counted(f, tests):
    """A counter the loop's end test reads, advanced by a multiple of hvd.size() (`step += batch *
    hvd.size()` with `if step >= total: break`): the steps are divided by hvd.size() as surely. The value
    added is returned as the division."""
    read = {dotted(n) for t in tests for n in ast.walk(t) if isinstance(n, (ast.Name, ast.Attribute))} - {None}
    return [a.node.value for name in read for a in f.s.assignments_to(name)
            if isinstance(a.node, ast.AugAssign) and isinstance(a.node.op, ast.Add)
            and f.mentions(a.node.value, f.is_global_size)]


def _divided_epochs(f):
    """The divisions by hvd.size() that set the number of epochs (fit's `epochs=`, the bound of a loop around a
    training loop)."""
    made = {id(n) for n in sources(f, _count_sinks(f)[1], _numeric(f))}
    return [d for d in _divided_steps(f) if id(d) in made]


def _count_sinks(f):
    """([what sets the steps of an epoch], [what sets the epochs])."""
    steps, epochs = [], []
    for e in f.s.events:
        for k in e.node.keywords:
            if k.arg in names.STEP_KWARGS:
                (epochs if k.arg == "epochs" else steps).append(k.value)
        last = f.s.qual(e.node.func).split(".")[-1]
        if last in ("take", "range", "islice"):
            steps += _bound(last, e.node.args)
    for s in f.steps:
        loops = [loop for loop in s.ctx.loops if isinstance(loop, (ast.For, ast.AsyncFor, ast.While, ast.ListComp,
                                                                   ast.GeneratorExp, ast.SetComp, ast.DictComp))]
        for i, loop in enumerate(loops):
            outer = i < len(loops) - 1  # a loop around the loop over batches counts epochs
            bounds = [loop.test] if isinstance(loop, ast.While) else []
            if isinstance(loop, (ast.For, ast.AsyncFor)) and isinstance(loop.iter, ast.Call) and \
                    f.s.qual(loop.iter.func) == "range":
                bounds += _bound("range", loop.iter.args)
            if not outer:  # the tests that end the loop over batches early
                bounds += [n.test for n in ast.walk(loop) if isinstance(n, ast.If) and n.body
                           and _ends(f, n.body[-1])]
            (epochs if outer else steps).extend(bounds)
    return steps, epochs


def _bound(name, args):
    """The argument of range() / islice() / take() that sets how many: the stop, not a start (`range(start_epoch,
    epochs)`, with start_epoch = global_step // steps_per_epoch, resumes; it does not set the epochs) or a step."""
    args = [a for a in args if not isinstance(a, ast.Starred)]
    if name == "range":
        return args[:1] if len(args) == 1 else args[1:2]
    if name == "islice":
        return args[1:2] if len(args) == 2 else args[2:3]
    return args[:1]


def _ends(f, stmt):
    """The statement ends the loop (or the run): break, return, raise, sys.exit()."""
    return isinstance(stmt, (ast.Break, ast.Return, ast.Raise)) or isinstance(stmt, ast.Expr) and \
        isinstance(stmt.value, ast.Call) and f.s.qual(stmt.value.func) in ("sys.exit", "exit", "quit", "os._exit")


_NUMERIC = ("int", "float", "round", "abs", "max", "min", "math.ceil", "math.floor", "numpy.ceil", "numpy.floor")


def _numeric(f):
    """A count made by a numeric function (`int(math.ceil(n / hvd.size()))`) is made of its arguments."""
    return lambda call: call.args if f.s.qual(call.func) in _NUMERIC else []


def _sharded_names(f, parts):
    """Names holding sharded data: a shard's result, and names assigned from expressions using one after it
    holds the shard (`n = int(ds.cardinality())` before `ds = ds.shard(...)` counts the whole set)."""
    since = {}  # name -> the walk order from which it holds sharded data (-1: where the order is not known)

    def hold(name, order):
        if name and (name not in since or order < since[name]):
            since[name] = order
            return True
        return False
    for p in parts:
        order = getattr(p, "order", -1)
        if hasattr(p.node, "func"):
            hold(assigned_name(p.node), order)
        for anc in parents(p.node):  # DataLoader(..., sampler=DistributedSampler(...)) written inline
            if isinstance(anc, (ast.Assign, ast.AnnAssign)):
                hold(assigned_name(anc.value) if isinstance(anc.value, ast.Call) else None, order)
                break
    changed = True
    while changed:
        changed = False
        for a in f.s.assigns:
            t = a.node.targets[0] if isinstance(a.node, ast.Assign) else a.node.target
            held = {n for n, order in since.items() if order < a.order}
            if a.node.value is not None and _mentions_name(f, a.node.value, held):
                changed |= hold(dotted(t), a.order)
    return set(since)


def _mentions_name(f, node, names):
    return any(dotted(n) in names for n in ast.walk(node) if isinstance(n, (ast.Name, ast.Attribute)))


def _len_before_shard(f, sharded):
    """A steps_per_epoch=/take() count built from len() of data that is not a shard's result."""
    # take(n) on a finite shard only caps the epoch; on a repeated one it makes every rank take n steps.
    # fit(steps_per_epoch=n) needs n batches per epoch either way (or Keras stops: "ran out of data").
    repeated = any(isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "repeat" for n in f.s.nodes())
    global_batch = _global_batch_chains(f)
    for e in f.s.events:
        sinks = [k.value for k in e.node.keywords if k.arg == "steps_per_epoch"]
        if isinstance(e.node.func, ast.Attribute) and e.node.func.attr == "take" and repeated:
            sinks += e.node.args[:1]
        for sink in sinks:
            if f.mentions(sink, f.is_size) or _chains(f, sink) & global_batch:
                continue  # len(x) // global_batch, the per-rank batch being global_batch // hvd.size()
            lens = [n for n in ast.walk(sink) if isinstance(n, ast.Call) and f.s.qual(n.func) == "len"]
            for a in (x for n in ast.walk(sink) if isinstance(n, ast.Name) for x in f.s.assignments_to(n.id)):
                lens += [n for n in ast.walk(a.node) if isinstance(n, ast.Call) and f.s.qual(n.func) == "len"]
            for n in lens:
                if n.args and dotted(n.args[0]) not in sharded:
                    return sink
    return None


def _chains(f, expr, depth=0):
    """The whole dotted names `expr` reads (`args.global_batch`, not its `args`), and those the names'
    assignments read (one step back); for a parameter of a walked function (`per_worker_batch` of the project's
    `train_dataset(x, y, per_worker, ...)`), those of the arguments it is bound to."""
    def whole(node):
        return [dotted(m) for m in ast.walk(node) if isinstance(m, (ast.Name, ast.Attribute)) and dotted(m) and
                not (isinstance(getattr(m, "parent", None), ast.Attribute) and m.parent.value is m)]
    out = set()
    for n in (n for n in ast.walk(expr) if isinstance(n, ast.Name)):
        for a in f.s.assignments_to(n.id):
            value = getattr(a.node, "value", None)
            out |= set(whole(value)) if value is not None else set()
        for arg in f.frames_binding(n) if depth < 3 else ():
            out |= _chains(f, arg, depth + 1)
    return out | set(whole(expr))


def _global_batch_chains(f):
    """The names a per-rank batch size is divided from (`per_rank = args.global_batch // hvd.size()` given to
    `.batch()` or `batch_size=`): a count of steps made by dividing by them counts global batches, which is
    one pass over a rank's shard."""
    given = [a for e in f.s.events if getattr(e.node.func, "attr", "") == "batch" for a in e.node.args[:1]]
    given += [k.value for e in f.s.events for k in e.node.keywords if k.arg == "batch_size"]
    out = set()
    for b in given:
        if f.mentions(b, f.is_size):
            out |= {c for c in _chains(f, b) if c.split(".")[0] not in f.s.aliases}  # not hvd.size
    return out - {dotted(b) for b in given if isinstance(b, (ast.Name, ast.Attribute))}


def _experience(f):
    """Reinforcement learning: no data set is read; each rank's data is what its environment gives back (`.step()`
    on an object that is also `.reset()`). The ranks collect different experience only when their randomness
    differs: a seed read from the rank anywhere (a seeding call, a `seed=` argument, an argument computed from
    `args.seed`) is evidence they do; seeds given and none from the rank (`torch.manual_seed(args.seed)`,
    `make_env(args.seed)`) mean every rank plays the same episodes and samples the same batches. None when
    the code is no such loop or gives no seed."""
    if _has_data(f, fits=False):  # (fit may be given replayed minibatches: `model.fit(states, q)` in replay())
        return None
    reset = {dotted(e.node.func.value) for e in f.s.events if e.ctx.reached and
             isinstance(e.node.func, ast.Attribute) and e.node.func.attr == "reset"} - {None}
    steps = [e for e in f.s.events if e.ctx.reached and isinstance(e.node.func, ast.Attribute) and
             e.node.func.attr == "step" and dotted(e.node.func.value) in reset]
    if not steps:
        return None
    seeds, passed = [], []  # seeding calls and `seed=` arguments; arguments computed from a seed option
    for e in f.s.events:
        last = f.s.qual(e.node.func).split(".")[-1]
        if last in names.SEEDERS + ("default_rng", "RandomState", "PRNGKey", "Generator") and e.node.args:
            seeds.append((e, e.node.args[0]))
        seeds += [(e, k.value) for k in e.node.keywords if k.arg in ("seed", "random_state", "rng_seed")]
        if last != "add_argument":
            passed += [(e, a) for a in e.node.args if "seed" in ast.unparse(a).lower()]
    per_rank = next((e for e, v in seeds + passed if f.mentions(v, f.is_any_rank)), None)
    if per_rank is not None:
        return Finding(OK, f"each rank collects its own experience: its randomness is seeded by its rank (line "
                       f"{per_rank.line}: {f.text(per_rank.line)})", per_rank.line)
    if not seeds:
        return None
    e = seeds[0][0]
    return Finding(WRONG, f"every rank seeds its environment and its sampling alike (line {e.line}: {f.text(e.line)}; "
                   "no seed reads the rank): the ranks play the same episodes and sample the same batches, so "
                   "hvd.size() - 1 of them add no experience", e.line,
                   "seed each rank differently: seed = args.seed + hvd.rank() (after broadcasting the initial weights)")


def _same_seed(f):
    """A seed set alike on every rank for the training data's shuffle (a global seed, a shuffle's seed=), else
    None; None too when a shuffle is seeded with the rank (its own seed decides, whatever the global one), or a
    generator object is made with a seed of the rank (`self.rng = np.random.RandomState(seed)` in a sampler
    handed `seed=base + hvd.rank()`): the draws are that generator's, not the global one's."""
    for e in f.s.events:
        seed = next((k.value for k in e.node.keywords if k.arg == "seed"), None)
        if seed is not None and f.s.qual(e.node.func).split(".")[-1] == "shuffle" and f.mentions(seed, f.is_rank):
            return None
        if e.ctx.reached and f.s.qual(e.node.func).split(".")[-1] in names.GENERATOR_CLASSES and \
                any(f.mentions(a, f.is_rank) for a in e.node.args[:1] + [k.value for k in e.node.keywords]):
            return None
    for e in f.s.events:
        q = f.s.qual(e.node.func)
        last = q.split(".")[-1]
        seed = None
        if last in names.SEEDERS and e.node.args and \
                q.split(".")[0] in ("torch", "tensorflow", "keras", "numpy", "random"):
            seed = e.node.args[0]
        elif last == "shuffle":
            seed = next((k.value for k in e.node.keywords if k.arg == "seed"), None)
        if seed is not None and not f.mentions(seed, f.is_rank):
            return e.node
    return None


def _shuffled(f):
    """The data is read in a random order: a shuffle, a shuffling loader or fit, or random draws of a generator
    object (`self.rng.choice(classes, n_way)` in an episode sampler)."""
    for e in f.s.events:
        q = f.s.qual(e.node.func)
        last = q.split(".")[-1]
        kw = {k.arg: k.value for k in e.node.keywords}
        if last == "shuffle" and isinstance(e.node.func, ast.Attribute):
            return True
        if last in names.GENERATOR_DRAWS and e.ctx.reached and \
                isinstance(e.node.func, ast.Attribute) and _generator_maker(f, e.node.func.value, e) is not None:
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
