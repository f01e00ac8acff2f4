"""TF1 graph calls left in TensorFlow 2's eager code: Horovod 0.28.1's `broadcast_global_variables` (of
horovod.tensorflow, and through it of horovod.tensorflow.keras and horovod.keras) raises RuntimeError when
it runs eagerly: "hvd.broadcast_global_variables() does not support eager execution. Please use
`hvd.broadcast_variables(<model/optimizer variables>)` instead." (tried on this machine, TF 2.21, all
three modules). Code ported from a TF 1 script often calls it after the first step where the TF 1 version
had `hvd.BroadcastGlobalVariablesHook(0)`.

Eager is TensorFlow 2's default, and making a `tf.compat.v1.Session` does not change it. The call counts
where nothing in the code read turns eager off (`tf.compat.v1.disable_eager_execution()`,
`disable_v2_behavior()`) and it runs outside a graph: not in a function that `tf.function` compiles (by its
decorator, or handed to `tf.function(...)`), nor under a `with` that makes a graph the default
(`tf.Graph().as_default()`). Traced in a graph it raises nothing: it broadcasts TF 1's collection of global
variables, which TF 2 code leaves empty (step 6's question, not a crash)."""
import ast

from hvdkit.check.names import EAGER_OFF
from hvdkit.check.script import parents

GLOBAL_BROADCASTS = ("horovod.tensorflow.broadcast_global_variables",
                     "horovod.tensorflow.keras.broadcast_global_variables", "horovod.keras.broadcast_global_variables")


def find(names):
    """(call, error, why, kind) for each call of broadcast_global_variables that runs eagerly."""
    calls = [n for n in names.nodes if isinstance(n, ast.Call)]
    if any(names.qual(c.func).split(".")[-1] in EAGER_OFF for c in calls):
        return []
    compiled = {id(a) for c in calls if names.qual(c.func) == "tensorflow.function" for a in c.args}
    out = []
    for call in calls:
        if names.qual(call.func) not in GLOBAL_BROADCASTS or _in_graph(names, call, compiled):
            continue
        out.append((call, "RuntimeError: hvd.broadcast_global_variables() does not support eager execution",
                    "TensorFlow 2 runs it eagerly (TF 1's graph call); broadcast the model's and the optimizer's "
                    "variables with hvd.broadcast_variables", "RuntimeError"))
    return out


def _in_graph(names, call, compiled):
    """The call may be traced into a graph: inside a def that tf.function compiles, or under `with
    <graph or session>.as_default()`."""
    for p in parents(call):
        if isinstance(p, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if any(names.qual(d.func if isinstance(d, ast.Call) else d) == "tensorflow.function"
                   for d in p.decorator_list):
                return True
            if any(id(n) in compiled for n in names.loads.get(p.name, ())):
                return True
        if isinstance(p, (ast.With, ast.AsyncWith)) and any(
                isinstance(i.context_expr, ast.Call) and isinstance(i.context_expr.func, ast.Attribute) and
                i.context_expr.func.attr == "as_default" for i in p.items):
            return True  # a graph made the default (a session's as_default too: counted out, to be sure)
    return False
