"""Keras 3 calls that raise when they are made, read from their arguments alone (Keras 3.15, the Keras of
TF 2.21's `tf.keras`; tried on this machine, the messages quoted are the exceptions' own):

- `ModelCheckpoint(filepath)` checks the path when the callback is built (keras/src/callbacks/
  model_checkpoint.py): with save_weights_only false or absent it must end in `.keras` or `.h5` (as
  written: `.hdf5`, `.H5` fail), else ValueError: The filepath provided must end in `.keras` (Keras model
  format). Received: filepath=ckpt. Built on rank 0 only, it still ends the job: rank 0 dies and the others
  wait for it. (With save_weights_only=True it must end in `.weights.h5`, else ValueError: When using
  `save_weights_only=True` in `ModelCheckpoint`, the filepath provided must end in `.weights.h5` (Keras
  weights format). Received: filepath=ckpt.h5 -- not reported yet: the corpus's and sets c, f, g and h's
  labels, written for Keras 2, count seven scripts that do this as running: it waits for those labels to be
  settled, docs/check.md's Crashes section says which.)
- `keras.optimizers.legacy` is a stub: Adagrad, Adam, Ftrl, Optimizer, RMSprop and SGD are one class whose
  constructor raises ImportError: `keras.optimizers.legacy` is not supported in Keras 3. When using
  `tf.keras`, to continue using a `tf.keras.optimizers.legacy` optimizer, you can install the `tf_keras`
  package (Keras 2) and set the environment variable `TF_USE_LEGACY_KERAS=True` to configure TensorFlow to
  use `tf_keras` when accessing `tf.keras`.
  Importing or naming the class does not raise; calling it does. Its other Keras 2 classes (Adadelta,
  Adamax, Nadam) are gone: the attribute raises AttributeError: module 'keras.optimizers.legacy' has no
  attribute 'Nadam'.

The path counts only when its ending is known: a literal, an f-string or `"...".format()` whose last part
is literal text, `os.path.join(..., "name.h5")`, `prefix + "name.h5"`, through names every definition of
which is one; an ending that some other text before it could complete (`f"{stem}5"`) does not count.
`save_weights_only` counts as written (a literal, or absent: False). `tf.keras` is Keras 3 here unless the
project asks for Keras 2 (`TF_USE_LEGACY_KERAS` anywhere in the code read: nothing under tf.keras is
reported then), and `keras` is the installed Keras unless the project has a module of that name.
"""
import ast
import string

from hvdkit.check.crash_names import bound_arguments

KERAS_ROOTS = ("keras", "tensorflow.keras", "tensorflow.compat.v1.keras", "tensorflow.compat.v2.keras")
CHECKPOINTS = tuple(f"{r}.callbacks.ModelCheckpoint" for r in KERAS_ROOTS) + (
    "keras.src.callbacks.ModelCheckpoint", "keras.src.callbacks.model_checkpoint.ModelCheckpoint")
# ModelCheckpoint's parameters in order (Keras 3.15), for arguments passed by position.
CHECKPOINT_PARAMS = ("filepath", "monitor", "verbose", "save_best_only", "save_weights_only")
MODEL_SUFFIXES = (".keras", ".h5")
# What keras.optimizers.legacy still has in Keras 3.15 (keras/optimizers/legacy/__init__.py): all one stub.
LEGACY_STUBS = ("Adagrad", "Adam", "Ftrl", "Optimizer", "RMSprop", "SGD")
LEGACY_ERROR = "ImportError: `keras.optimizers.legacy` is not supported in Keras 3. When using `tf.keras`, to " \
    "continue using a `tf.keras.optimizers.legacy` optimizer, you can install the `tf_keras` package (Keras 2) " \
    "and set the environment variable `TF_USE_LEGACY_KERAS=True` to configure TensorFlow to use `tf_keras` when " \
    "accessing `tf.keras`."
LEGACY_KERAS_SWITCH = "TF_USE_LEGACY_KERAS"


def find(names):
    """(node, error, why, kind) for each ModelCheckpoint built with a model path it rejects and each use of
    keras.optimizers.legacy that raises."""
    roots = _keras3_roots(names)
    if not roots:
        return []
    out = []
    for node in names.nodes:
        if isinstance(node, ast.Call) and _last_name(node.func) in LEGACY_STUBS + ("ModelCheckpoint",):
            q = names.qual(node.func)
            if q in CHECKPOINTS and q.startswith(roots):
                out += _checkpoint(node, names)
            elif _legacy_name(q, roots) in LEGACY_STUBS and _every_binding_legacy(node.func, names, roots):
                out.append((node, LEGACY_ERROR, f"{ast.unparse(node.func)} is Keras 3's stub for the Keras 2 "
                            "optimizers, which raises when it is made", "ImportError"))
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) and node.attr[:1].isupper() and \
                node.attr not in LEGACY_STUBS and _last_name(node.value) == "legacy":
            name = _legacy_name(names.qual(node), roots)
            if name:
                out.append((node, f"AttributeError: module 'keras.optimizers.legacy' has no attribute {name!r}",
                            f"Keras 3's keras.optimizers.legacy keeps only {', '.join(LEGACY_STUBS)}",
                            "AttributeError"))
    return out


def _every_binding_legacy(func, names, roots):
    """Every import that may bind the name called is of the legacy optimizers: a version shim (`if KERAS3: from
    keras.optimizers import SGD` / `else: from keras.optimizers.legacy import SGD`) makes the stub only on the
    Keras 2 branch, so no crash is certain."""
    if not isinstance(func, ast.Name):
        return True
    for d, _ in names.definitions(func) or ():
        imp = getattr(d, "parent", None)
        if isinstance(d, ast.alias) and isinstance(imp, ast.ImportFrom) and not imp.level and imp.module and \
                not _legacy_name(f"{imp.module}.{d.name}", roots):
            return False
    return True


def _last_name(node):
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""


def _keras3_roots(names):
    """The module paths that are Keras 3 for this project: keras unless the project has its own module so
    named; tf.keras unless the code read asks for Keras 2 (TF_USE_LEGACY_KERAS)."""
    project = names.s.project
    roots = [r for r in KERAS_ROOTS if r != "keras" or project is None or project.module("keras") is None]
    if any(isinstance(n, ast.Constant) and isinstance(n.value, str) and LEGACY_KERAS_SWITCH in n.value
           for n in names.nodes):
        roots = [r for r in roots if not r.startswith("tensorflow.")]
    return tuple(r + "." for r in roots)


def _legacy_name(q, roots):
    """'Adam' for `<a Keras 3 root>.optimizers.legacy.Adam`, else ''."""
    for root in roots:
        prefix = f"{root}optimizers.legacy."
        if q.startswith(prefix) and "." not in q[len(prefix):]:
            return q[len(prefix):]
    return ""


# --- ModelCheckpoint -------------------------------------------------------------------------------
def _checkpoint(call, names):
    given = bound_arguments(call, CHECKPOINT_PARAMS)
    if given is None or "filepath" not in given:
        return []
    weights = given.get("save_weights_only", ast.Constant(value=False))
    if not isinstance(weights, ast.Constant):
        return []  # an option or a computed flag: which check runs is not known
    if weights.value:
        return []  # the `.weights.h5` check: held back (see the module's docstring)
    ending = path_ending(given["filepath"], names)
    if not ending or any(ending.endswith(w) or w.endswith(ending) for w in MODEL_SUFFIXES):
        return []  # no ending known, or one the path has or that text before it could complete
    path = given["filepath"]
    shown = path.value if isinstance(path, ast.Constant) else f"...{ending}"  # the text the path ends with
    error = "ValueError: The filepath provided must end in `.keras` (Keras model format). Received: " \
            f"filepath={shown}"
    why = f"Keras 3's ModelCheckpoint checks the path when it is built: it ends in {ending!r}, not '.keras' or '.h5'"
    return [(call, error, why, "ValueError")]


def path_ending(node, names, depth=0):
    """The literal text a path expression surely ends with ('' when unknown): the same for every
    definition of a name."""
    if depth > 6:
        return ""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        last = node.values[-1] if node.values else None
        return last.value if isinstance(last, ast.Constant) and isinstance(last.value, str) else ""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return path_ending(node.right, names, depth + 1)
    if isinstance(node, ast.Call) and not any(isinstance(a, ast.Starred) for a in node.args):
        if names.qual(node.func) in ("os.path.join", "posixpath.join") and node.args and not node.keywords:
            return path_ending(node.args[-1], names, depth + 1)
        if isinstance(node.func, ast.Attribute) and node.func.attr == "format" and \
                isinstance(node.func.value, ast.Constant) and isinstance(node.func.value.value, str):
            return _format_tail(node.func.value.value)
        return ""
    if isinstance(node, ast.Name):
        endings = {path_ending(v, names, depth + 1) for v in names.values(node) or ()}
        return endings.pop() if len(endings) == 1 else ""
    return ""


def _format_tail(template):
    """The literal text after the last replacement field of a str.format template."""
    try:
        parts = list(string.Formatter().parse(template))
    except ValueError:
        return ""
    if not parts:
        return ""
    text, field = parts[-1][0], parts[-1][1]
    return text if field is None else ""
