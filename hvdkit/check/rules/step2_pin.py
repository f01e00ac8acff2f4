"""Step 2: each rank one GPU chosen by its local rank (or, on CPUs, its share of the cores)."""
import ast
import re

from hvdkit.check import names, values
from hvdkit.check.findings import MISSING, OK, UNKNOWN, WRONG, Finding
from hvdkit.check.script import dotted
from hvdkit.check.sources import returns


TORCH_PIN = "torch.cuda.set_device(hvd.local_rank())"
TF_PIN = 'tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU") (gpus = tf.config.list_physical_devices("GPU"))'
TORCH_THREADS = "torch.set_num_threads(cores // hvd.local_size())"
TF_THREADS = "tf.config.threading.set_intra_op_parallelism_threads(cores // hvd.local_size())"


def judge(f):
    hk = [e for e in f.s.api_calls("init") if e.api == ("hvdkit", "init")]
    if hk:
        return Finding(OK, "hvdkit's init() pins a device and splits the cores per rank", hk[0].line)
    good, bad, unread = [], [], []
    for e in f.s.events:
        attr = e.node.func.attr if isinstance(e.node.func, ast.Attribute) else ""
        if attr in names.THREAD_CALLS or _thread_env(e):
            good.append((e.line, "CPU threads set per rank"))
        elif attr in names.GPU_CALLS and (e.node.args or attr != "cuda"):
            _judge_device(f, e.node, e, good, bad, unread)
        elif attr in ("device", "to") and f.mentions(e.node, _local(f)):
            good.append((e.line, "GPU chosen by local rank"))  # torch.device("cuda", hvd.local_rank())
    listed = []  # CUDA_VISIBLE_DEVICES from a value the user gives (`= args.device`): one GPU, or a list
    for a in f.s.assigns:
        t = a.node.targets[0] if isinstance(a.node, ast.Assign) else a.node.target
        key = dotted(t) or ""
        env = isinstance(t, ast.Subscript) and "CUDA_VISIBLE_DEVICES" in ast.unparse(t.slice)
        if key.endswith("visible_device_list") or env:
            value = a.node.value.value if isinstance(a.node.value, ast.Constant) else None
            if env and _hides_all_gpus(a.node.value):
                good.append((a.node.lineno, "GPUs hidden: CPU run"))
            elif isinstance(value, str) and "," in value or _joined(a.node.value):
                continue  # a set of GPUs made visible to the job; the rank's pick among them comes elsewhere
            elif key.endswith("visible_device_list") and _idle_session_config(f, t):
                bad.append((a.node.lineno, f"line {a.node.lineno} sets visible_device_list on a TF 1 session's "
                            "config, but that session runs nothing: TensorFlow 2's eager ops see every GPU, and "
                            "each rank of a node takes GPU 0", a))
            elif env and not isinstance(a.node.value, ast.Constant):
                listed.append(a)
            else:
                _judge_device(f, a.node.value, a, good, bad, unread)
    _judge_listed(f, listed, good, bad, unread)
    # With CUDA_VISIBLE_DEVICES (or visible_device_list) set from the local rank, 'cuda:0' is this rank's GPU.
    env_pinned = any(w == "GPU chosen by local rank" and "CUDA_VISIBLE_DEVICES" in f.text(line)
                     or "visible_device_list" in f.text(line) for line, w in good)
    bad += _all_gpus_per_rank(f) + _placed_before_pinning(f, good) + ([] if env_pinned else _hard_coded_gpu(f))
    bad += _pinned_after_tf_started(f) + _env_pinned_after_tf_enumerated(f)
    bad = _default_run(f, bad)
    if not bad and not good and _cpu_only(f):
        return Finding(OK, "CPU-only script: no GPU to pin (threads per rank are not set: see the notes)")
    if not bad and not good and _torch_without_gpu(f):
        return Finding(OK, "PyTorch script that uses no GPU (no cuda device, .cuda() or GPU query): it runs on the "
                       "CPU, nothing to pin (threads per rank are not set)")
    pins, threads = _fixes(f)
    if bad:
        line, why = bad[0]
        return Finding(WRONG, why, line, f"select the GPU with hvd.local_rank(), e.g. {pins}")
    if good and all(w == "CPU threads set per rank" for _, w in good) and f.frameworks == {"torch"} and \
            _torch_gpu_use(f):
        # threads split the cores, but a GPU, when there is one, is still each rank's default: GPU 0
        return f.unread_finding("a GPU chosen by the local rank", 2, _placed(f)) or Finding(
            MISSING, f"CPU threads are set per rank (line {good[0][0]}), but the script uses a GPU when there is "
            "one and none is chosen by hvd.local_rank(): every rank of a node on GPU 0", good[0][0], pins)
    if good:
        return Finding(OK, "; ".join(sorted({w for _, w in good})), good[0][0])
    if unread:
        line, expr = unread[0]
        return Finding(UNKNOWN, f"the GPU is chosen by `{expr}` (line {line}), a value of the project's code that "
                       "could not be read: cannot tell whether it is the local rank", line,
                       "make that code readable (give --root the project's folder) or run `hvdkit check --run`")
    return f.unread_finding("a GPU chosen by the local rank", 2, _placed(f)) or Finding(
        MISSING, "no GPU chosen by hvd.local_rank() and no CPU threads set per rank", fix=f"{pins}; on CPUs {threads}")


def _judge_listed(f, listed, good, bad, unread):
    """CUDA_VISIBLE_DEVICES set from a value the user gives (an option, a config entry): a string that may list
    several GPUs ("0,1,2,3"). With the rank's pick among them made elsewhere (`set_device(hvd.local_rank())`)
    the same list on every rank is right; with no such pick, every rank takes the first GPU the value gives."""
    picked = any(w == "GPU chosen by local rank" for _, w in good)
    for a in listed:
        judged = []
        _judge_device(f, a.node.value, a, good, judged, unread)
        bad += [b for b in judged if not (picked and b[1].startswith("every rank takes the same GPU"))]


def _idle_session_config(f, target):
    """`config.gpu_options.visible_device_list = ...` in TensorFlow 2 code that runs eagerly, where `config`
    goes only into `tf.compat.v1.Session(config=config)` whose session nothing reads (no `run`, no
    `as_default`, not handed to Keras or an estimator): the setting reaches no op."""
    root = target
    while isinstance(root, ast.Attribute):
        root = root.value
    if not isinstance(root, ast.Name) or f.frameworks != {"tensorflow"}:
        return False
    calls = [e for e in f.s.events if e.ctx.reached]
    if any(f.s.qual(e.node.func).split(".")[-1] in names.EAGER_OFF for e in calls):
        return False
    given = [e for e in calls if any(isinstance(a, ast.Name) and a.id == root.id
                                     for a in e.node.args + [k.value for k in e.node.keywords])]
    if not given or any(f.s.qual(e.node.func) not in ("tensorflow.compat.v1.Session",
                                                      "tensorflow.compat.v1.InteractiveSession") for e in given):
        return False
    for e in given:
        parent = getattr(e.node, "parent", None)
        if isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name):
            sess = parent.targets[0].id
            if any(isinstance(n, ast.Name) and n.id == sess and isinstance(n.ctx, ast.Load)
                   for t in f.s.trees() for n in ast.walk(t)):
                return False
        elif not isinstance(parent, ast.Expr):
            return False  # used in place: `with tf.compat.v1.Session(config=config) as sess:`, handed on
    return True


def _placed(f):
    """The devices and what is put on them: the receivers and arguments of `.to()` / `.cuda()`, `device=`."""
    out = []
    for e in f.s.events:
        if e.ctx.reached and getattr(e.node.func, "attr", "") in names.GPU_PLACEMENT:
            out += [e.node.func.value] + e.node.args
        out += [k.value for k in e.node.keywords if k.arg == "device"]
    return out


def _fixes(f):
    """The pinning and thread calls of the script's framework (both when it uses both, or neither is known)."""
    fw = f.frameworks
    if fw == {"tensorflow"}:
        return TF_PIN, TF_THREADS
    if fw == {"torch"}:
        return TORCH_PIN, TORCH_THREADS
    return f"{TORCH_PIN} / {TF_PIN}", f"{TORCH_THREADS} / {TF_THREADS}"


def _env_read(f, n, keys):
    """os.environ[K] / os.environ.get(K) / os.getenv(K) for K in keys: K a constant, or a name a loop takes from
    constants (`for var in ("OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID"): ... os.environ[var]`) of which
    every launcher variable is one of keys."""
    if isinstance(n, ast.Subscript):
        return f.s.qual(n.value) == "os.environ" and _env_key(f, n.slice, keys)
    if isinstance(n, ast.Call) and f.s.qual(n.func) in ("os.environ.get", "os.getenv") and n.args:
        return _env_key(f, n.args[0], keys)
    return False


def _env_key(f, key, keys):
    if isinstance(key, ast.Constant):
        return key.value in keys
    if not isinstance(key, ast.Name):
        return False
    loops = [d.parent for d in f.s.reaching(key) or ()
             if isinstance(getattr(d, "parent", None), (ast.For, ast.AsyncFor)) and d.parent.target is d]
    known = [c.value for lp in loops for c in getattr(lp.iter, "elts", ())
             if isinstance(c, ast.Constant) and c.value in names.LOCAL_RANK_ENV + names.RANK_ENV]
    return bool(loops) and bool(known) and all(k in keys for k in known)


def _local(f):
    """The local rank: hvd.local_rank(), or the launcher's local-rank variable (set before hvd.init(), so a
    script may pin the GPU from it before importing the framework)."""
    return _returned_too(f, lambda n: f.is_local_rank(n) or _env_read(f, n, names.LOCAL_RANK_ENV))


def _global(f):
    """The global rank: hvd.rank(), or the launcher's global-rank variable (not a GPU index on 2+ nodes)."""
    return _returned_too(f, lambda n: f.is_rank(n) or _env_read(f, n, names.RANK_ENV))


def _returned_too(f, query):
    """`query`, also through what the project's own functions called return (`LOCAL_RANK =
    local_rank_from_env()`, `torch.device("cuda", dist_utils.local_rank())`)."""
    seen = set()

    def pred(n):
        if query(n):
            return True
        if isinstance(n, ast.Call) and id(n) not in seen and f.local_function(n):
            seen.add(id(n))
            return any(f.mentions(r, pred) for r in returns(f, n))
        return False
    return pred


def _hides_all_gpus(node):
    """No GPU visible to the process: tf.config.set_visible_devices([], "GPU"), or CUDA_VISIBLE_DEVICES set
    to "" or "-1" (CUDA stops at the first id that is not a GPU). The script runs on the CPU."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and (node.value.strip() == "" or node.value.strip().startswith("-"))
    if not (isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "set_visible_devices"):
        return False
    kw = {k.arg: k.value for k in node.keywords}
    devices = node.args[0] if node.args else kw.get("devices")
    kind = node.args[1] if len(node.args) > 1 else kw.get("device_type")
    return isinstance(devices, (ast.List, ast.Tuple)) and not devices.elts and \
        isinstance(kind, ast.Constant) and str(kind.value).upper() == "GPU"


def _judge_device(f, node, e, good, bad, unread):
    line = node.lineno
    if _hides_all_gpus(node):
        good.append((line, "GPUs hidden: CPU run"))
    elif f.mentions(node, _local(f)) or _picked_in_loop(f, node, e, _local(f)):
        good.append((line, "GPU chosen by local rank"))
    elif f.mentions(node, _global(f)) or _picked_in_loop(f, node, e, _global(f)):
        bad.append((line, f"GPU chosen by the global rank (line {line}): on 2+ nodes rank 4 asks for GPU 4", e))
    elif f.mentions(node, _returned_too(f, lambda n: _env_read(f, n, names.TORCHRUN_LOCAL_RANK_ENV))):
        bad.append((line, f"GPU chosen by LOCAL_RANK (line {line}: {f.text(line)}), which torchrun sets and "
                    "horovodrun and mpirun do not: every rank reads its default and takes the same GPU", e))
    elif f.mentions(node, f.s.of_unread_project_code):
        # `set_device(dist.local_rank)` of a module of the project that is not there: that module may set it
        # from hvd.local_rank(); no verdict without its code
        unread.append((line, ast.unparse(_first(node, f.s.of_unread_project_code))))
    else:
        bad.append((line, f"every rank takes the same GPU (line {line}: {f.text(line)})", e))


def _picked_in_loop(f, node, e, rank):
    """`for i, gpu in enumerate(gpus): if i == hvd.local_rank(): set_visible_devices(gpu, "GPU")`: the device is
    the item of a loop over the GPUs whose index the condition around the call compares to `rank`."""
    names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    for lp in e.ctx.loops:
        if not (isinstance(lp, (ast.For, ast.AsyncFor)) and isinstance(lp.iter, ast.Call) and
                f.s.qual(lp.iter.func) == "enumerate" and isinstance(lp.target, ast.Tuple) and
                len(lp.target.elts) == 2 and all(isinstance(t, ast.Name) for t in lp.target.elts)):
            continue
        index, item = lp.target.elts[0].id, lp.target.elts[1].id
        if item not in names:
            continue
        for g in e.ctx.guards:
            test = g.test
            if g.branch and isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq):
                sides = [test.left, test.comparators[0]]
                if any(isinstance(x, ast.Name) and x.id == index for x in sides) and \
                        any(f.mentions(x, rank) for x in sides):
                    return True
    return False


def _first(node, pred):
    """The first expression under `node` for which `pred` holds, else `node`."""
    return next((n for n in ast.walk(node) if pred(n)), node)


def _default_run(f, bad):
    """The faults of the run with every option at its declared default. A device chosen by hand behind an
    option that is off by default (`if args.gpu is not None: set_device(args.gpu)`, `if args.dp:
    DataParallel(model)`) is another launch layout the user picks (one rank per node driving its GPUs, a GPU
    given per rank): a note naming the option, not the conversion's fault."""
    kept = []
    for line, why, e in bad:
        skip = f.path_guards(e)
        options = values.off_by_default(f.s, e, skip) if values.runs(
            f.s, e, skip, defaults=True).kind == "never" else []
        if options:
            f.notes.append(f"line {line}: with {', '.join(options)} (off by default): {why}; right only when each "
                           "rank is launched with its own GPUs (one rank per node, or a GPU given per rank)")
        else:
            kept.append((line, why))
    return kept


def _joined(node):
    """`",".join(ids)`: a list of GPUs made visible, not one GPU."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "join" and \
        isinstance(node.func.value, ast.Constant) and node.func.value.value == ","




def _all_gpus_per_rank(f):
    """torch.nn.DataParallel in a Horovod job: every rank drives all the node's GPUs."""
    return [(e.line, f"line {e.line} wraps the model in DataParallel: each rank spreads over every GPU of the node, "
             "on top of the GPU its local rank pinned", e) for e in f.s.events
            if f.s.qual(e.node.func).startswith("torch.") and f.s.qual(e.node.func).split(".")[-1] == "DataParallel"
            and e.ctx.reached]


def _cuda_without_index(f, node):
    def pred(n):
        return isinstance(n, ast.Constant) and n.value == "cuda"
    return f.mentions(node, pred) and not f.mentions(node, _local(f))


def _placed_before_pinning(f, good):
    """Model or data put on 'cuda' (the current device: GPU 0 on every rank) before set_device(local_rank)."""
    pins = [e for e in f.s.events if getattr(e.node.func, "attr", "") == "set_device" and e.ctx.reached
            and f.mentions(e.node, _local(f))]
    if not pins:
        return []
    first = min(p.order for p in pins)
    for e in f.s.events:
        attr = getattr(e.node.func, "attr", "")
        if e.order >= first or not e.ctx.reached or attr not in names.GPU_PLACEMENT:
            continue
        if attr == "cuda" and not e.node.args or \
                attr == "to" and e.node.args and _cuda_without_index(f, e.node.args[0]):
            return [(e.line, f"line {e.line} puts model or data on 'cuda' before set_device(local rank) at line "
                     f"{pins[0].line}: on every rank that is GPU 0", e)]
    return []


# TensorFlow calls that make tensors or build Keras layers: the first one initialises TensorFlow's GPUs, after
# which tf.config.set_visible_devices raises RuntimeError ("Visible devices cannot be modified after being
# initialized").
# (Keras' applications are left out: their preprocess_input works on NumPy arrays too.)
_TF_STARTS = ("tensorflow.data.", "tensorflow.constant", "tensorflow.Variable", "tensorflow.convert_to_tensor",
              "tensorflow.keras.layers.", "tensorflow.keras.Sequential", "tensorflow.keras.Model", "keras.layers.",
              "keras.Sequential", "keras.Model")


def _pinned_after_tf_started(f):
    """tf.config.set_visible_devices(gpus[local_rank]) run after a call that made a tensor or built a Keras layer
    (a data set, a model, in the project's modules too): TensorFlow has initialised its GPUs, the call raises
    (or, caught, leaves every GPU visible to every rank)."""
    pins = [e for e in f.s.events if e.ctx.reached and getattr(e.node.func, "attr", "") == "set_visible_devices"
            and f.mentions(e.node, _local(f))]
    if not pins:
        return []
    pin = min(pins, key=lambda e: e.order)
    start = next((e for e in f.s.events if e.ctx.reached and e.order < pin.order and
                  (f.s.qual(e.node.func) or "").startswith(_TF_STARTS)), None)
    if start is None:
        return []
    return [(pin.line, f"line {pin.line} pins the GPU after TensorFlow has initialised its GPUs (line {start.line}: "
             f"{f.s.qual(start.node.func)}): set_visible_devices raises RuntimeError there, and every rank keeps "
             "every GPU", pin)]


# TensorFlow calls that enumerate the GPUs through CUDA, which reads CUDA_VISIBLE_DEVICES then, once.
_TF_ENUMERATES = _TF_STARTS + ("tensorflow.config.list_physical_devices", "tensorflow.config.experimental.",
                               "tensorflow.config.set_visible_devices", "tensorflow.test.is_gpu_available")


def _env_pinned_after_tf_enumerated(f):
    """os.environ["CUDA_VISIBLE_DEVICES"] = str(hvd.local_rank()) written after TensorFlow has listed the GPUs
    (`tf.config.list_physical_devices("GPU")`, memory growth set on each): CUDA read the variable when TensorFlow
    enumerated them, so writing it later changes nothing and every rank keeps every GPU (TensorFlow places
    on the first). Only a TensorFlow script: torch reads it at its own first CUDA call."""
    if "tensorflow" not in f.frameworks or "torch" in f.frameworks:
        return []
    for a in f.s.assigns:
        t = a.node.targets[0] if isinstance(a.node, ast.Assign) else getattr(a.node, "target", None)
        if not (isinstance(t, ast.Subscript) and "CUDA_VISIBLE_DEVICES" in ast.unparse(t.slice) and a.ctx.reached
                and f.mentions(a.node.value, _local(f))):
            continue
        start = next((e for e in f.s.events if e.ctx.reached and e.order < a.order and
                      (f.s.qual(e.node.func) or "").startswith(_TF_ENUMERATES)), None)
        if start is not None:
            return [(a.node.lineno, f"line {a.node.lineno} sets CUDA_VISIBLE_DEVICES after TensorFlow has enumerated "
                     f"the GPUs (line {start.line}: {f.s.qual(start.node.func)}): CUDA has read it already, so it "
                     "changes nothing and every rank keeps every GPU", a)]
    return []


def _thread_env(e):
    """os.environ["OMP_NUM_THREADS"] = ... is not a call; os.environ.setdefault / putenv are."""
    return "OMP_NUM_THREADS" in ast.unparse(e.node) and getattr(e.node.func, "attr", "") in ("setdefault", "putenv",
                                                                                           "update")


def _hard_coded_gpu(f):
    """A GPU index every rank shares, whatever was pinned: .to('cuda:1'), .cuda(0), torch.device('cuda:0'),
    'cuda:' joined with a value of a configuration or an option (`'cuda:' + str(cfg['gpu_id'])`,
    f"cuda:{args.gpu}", torch.device("cuda", args.gpu)), or an option given to torch.device alone (its
    default None raises TypeError there). `torch.cuda.current_device()` is the pinned GPU; an index from a
    call the source does not show is no evidence."""
    out = []
    for e in f.s.events:
        attr = getattr(e.node.func, "attr", "")
        if not e.ctx.reached or attr not in ("to", "cuda", "device") or not e.node.args:
            continue
        arg = e.node.args[0] if attr != "device" or len(e.node.args) == 1 else e.node
        if f.mentions(arg, _local(f)) or f.mentions(arg, _current_device):
            continue
        if f.mentions(arg, lambda n: _names_an_index(f, n)) or \
                attr == "cuda" and isinstance(arg, ast.Constant) and isinstance(arg.value, int):
            why = "the global rank: on 2+ nodes rank 4 asks for GPU 4" if f.mentions(arg, _global(f)) else \
                "every rank on that one GPU"
            out.append((e.line, f"line {e.line} uses a fixed GPU ({f.text(e.line)}): {why}", e))
        elif isinstance(arg, (ast.Name, ast.Attribute)) and (index := _default_cuda_index(f, arg, e)):
            out.append((e.line, f"line {e.line} uses a fixed GPU ({f.text(e.line)}): `{ast.unparse(arg)}` is "
                        f"'{index}' by default: every rank on that one GPU", e))
        elif f.s.qual(e.node.func) == "torch.device" and len(e.node.args) == 1:
            option = next((fl for n in ast.walk(arg) for fl in [f.ev.flag(n, e.ctx.env)] if fl is not None), None)
            if option is not None and isinstance(option.default, ast.Constant) and option.default.value is None:
                out.append((e.line, f"line {e.line} gives torch.device the option {option.option} ({f.text(e.line)}):"
                            " at its default None that raises TypeError, and set, every rank takes that one GPU", e))
    return out


def _default_cuda_index(f, node, e):
    """The device string a name or a configuration field holds in the default run, when it names one GPU
    (`torch.device(cfg.device)` with the dataclass field `device: str = "cuda:0"`): that string, else None."""
    frame = e.ctx.frames[-1] if e.ctx.frames else None
    value = values.Evaluator(f.s, values.Where(0, True, defaults=True)).value(node, frame, e)
    return value if isinstance(value, str) and re.fullmatch(r"cuda:\d+", value) else None


def _names_an_index(f, n):
    """A device string or call that names a GPU index every rank computes alike: 'cuda:1', or 'cuda:' + x,
    'cuda:%d' % x, f'cuda:{x}', 'cuda:{}'.format(x), torch.device('cuda', x) with x shared (see _shared)."""
    def cuda_text(c, pattern):
        return isinstance(c, ast.Constant) and isinstance(c.value, str) and re.fullmatch(pattern, c.value) is not None
    if cuda_text(n, r"cuda:\d+"):
        return True
    index = None
    if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Add) and cuda_text(n.left, r"cuda:"):
        index = [n.right]
    elif isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mod) and cuda_text(n.left, r"cuda:%\w"):
        index = [n.right]
    elif isinstance(n, ast.JoinedStr) and n.values and cuda_text(n.values[0], r"cuda:"):
        index = [v.value for v in n.values if isinstance(v, ast.FormattedValue)]
    elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "format" and \
            cuda_text(n.func.value, r"cuda:\{\w*\}"):
        index = n.args
    elif isinstance(n, ast.Call) and f.s.qual(n.func) == "torch.device" and len(n.args) == 2 and \
            cuda_text(n.args[0], r"cuda"):
        index = n.args[1:]
    return bool(index) and all(_shared(f, i) for i in index)


def _shared(f, node, depth=0):
    """Every rank computes the same value (or the global rank, which the caller names): constants, options,
    configuration entries (`cfg["gpu_id"]`: the same file on every rank), and names assigned only those. A
    value from a call the source does not show is not known to be shared: no verdict rests on it."""
    if depth > 12:
        return False
    down = lambda x: _shared(f, x, depth + 1)  # noqa: E731 - a local shorthand
    if isinstance(node, ast.Constant) or _global(f)(node):
        return True
    if isinstance(node, ast.Subscript):
        return isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str)
    if isinstance(node, ast.Attribute) and f.ev.flag(node, None) is not None:
        return True
    if isinstance(node, ast.Call):
        return f.s.qual(node.func) in ("str", "int") and all(down(a) for a in node.args)
    if isinstance(node, ast.BinOp):
        return down(node.left) and down(node.right)
    name = dotted(node) if isinstance(node, (ast.Name, ast.Attribute)) else None
    if name is None:
        return False
    assigned = [a.node.value for a in f.s.assignments_to(node) if a.node.value is not None]
    assigned += f.frames_binding(node) if isinstance(node, ast.Name) else []
    return bool(assigned) and all(down(v) for v in assigned)


def _current_device(n):
    """torch.cuda.current_device(): the GPU set_device chose on this rank."""
    return isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "current_device"


def _cpu_only(f):
    """The script names only the CPU as its device: no 'cuda', no GPU lists, no .cuda()."""
    cpu = gpu = False
    for node in f.s.nodes():
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            low = node.value.lower()
            cpu = cpu or low == "cpu" or low.startswith("/cpu")
            gpu = gpu or low.startswith("cuda") or low == "gpu" or low.startswith("/gpu")
        elif isinstance(node, ast.Attribute) and node.attr in ("cuda", "list_physical_devices"):
            gpu = gpu or node.attr == "list_physical_devices" or not isinstance(getattr(node, "parent", None),
                                                                                ast.Attribute)
    return cpu and not gpu


def _code_read(f):
    """Every node of the code read: the script and the project's modules it imports."""
    trees = [f.s.tree] + [m.tree for m in f.s.imported if m is not None and m.tree is not f.s.tree]
    return (n for tree in trees for n in ast.walk(tree))


def _torch_gpu_use(f):
    """The code read puts tensors on a GPU when there is one: a "cuda" device string, a `.cuda()` call, a query
    of torch.cuda (by what it calls, not by the names it uses: `batch_per_gpu` is no GPU)."""
    for node in _code_read(f):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("cuda"):
            return True
        if isinstance(node, ast.Call) and (getattr(node.func, "attr", "") == "cuda" or
                                           f.s.qual(node.func).startswith("torch.cuda.")):
            return True
    return False


def _torch_without_gpu(f):
    """A PyTorch script with no word of GPU use anywhere in the code read (the script and the project's
    modules it imports: names, attributes, keywords, strings other than docstrings): it trains on the CPU.
    A device chosen in a module (`get_device()` returning `torch.device("cuda" ...)`) is GPU use. TensorFlow
    is left out: it takes every visible GPU unless pinned."""
    if f.frameworks != {"torch"}:
        return False
    for node in _code_read(f):
        words = []
        if isinstance(node, ast.Name):
            words = [node.id]
        elif isinstance(node, ast.Attribute):
            words = [node.attr]
        elif isinstance(node, (ast.keyword, ast.arg)):
            words = [node.arg or ""]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and \
                not isinstance(getattr(node, "parent", None), ast.Expr):
            words = [node.value]
        if any(names.GPU_WORDS.search(w) for w in words):
            return False
    return True
