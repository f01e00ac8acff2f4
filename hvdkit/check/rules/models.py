"""Which objects are models and optimizers, by what the code does with them (steps 5 to 8): parameters that
flow into an optimizer, the calls that make optimizers (by class, or because their result steps or is
wrapped), the objects used as models (trained, or given a model's methods), and what a value holds of a
model's state."""
import ast

from hvdkit.check import names
from hvdkit.check.rules.held import Ref, imported, origin, reaching, returned, with_values
from hvdkit.check.script import dotted, loop_bindings, parents

# A model's (or an optimizer's) state, as the frameworks name it.
STATE = ("state_dict", "parameters", "named_parameters", "buffers", "named_buffers", "variables",
          "trainable_variables", "non_trainable_variables", "weights", "trainable_weights", "get_weights")


def elements(f, node, at):
    """A loop variable over a literal collection stands for each element (`m` of `for m in (gen, disc)`, of
    `for m in modules.values()` with modules a dict literal, `net` of `for net, opt in ((g, og), (d, od))`);
    anything else stands for itself."""
    name = dotted(node)
    # the loops around the event, and a comprehension the node is in (`[v for m in online + target for v in
    # m.variables]` handed to a broadcast)
    for p in list(parents(node)) + list(parents(at.node)):
        for g in loop_bindings(p):
            bound = [t.id for t in ast.walk(g.target) if isinstance(t, ast.Name)]
            if not name or name not in bound:
                continue
            index = next((i for i, t in enumerate(getattr(g.target, "elts", [])) if dotted(t) == name), None)
            items = isinstance(g.iter, ast.Call) and getattr(g.iter.func, "attr", "") == "items"
            out = []
            made = with_values(f, g.iter)
            if items and isinstance(g.iter.func.value, ast.Call):  # `self.nets().items()`: what nets() returns
                made += [v for r, _ in returned(f, g.iter.func.value, at) for v in with_values(f, r)]
            for expr in made:
                if isinstance(expr, ast.Dict) and items:
                    out += [x for x in (expr.values if index == 1 else []) if dotted(x)]
                    continue
                elts = expr.values if isinstance(expr, ast.Dict) else getattr(expr, "elts", [])
                if index is not None:
                    elts = [x.elts[index] for x in elts if isinstance(x, (ast.Tuple, ast.List)) and len(x.elts) > index]
                else:  # `online, target = (enc, proj), (t_enc, t_proj)`: the names' tuples, in one assignment
                    elts = [y for x in elts for y in (x.elts if isinstance(x, (ast.Tuple, ast.List)) else [x])]
                out += [x for x in elts if dotted(x)]
            return out or [node]
    return [node]


def wrapper(f, call):
    a = f.s.api(call.func)
    return bool(a) and a[1].split(".")[-1] in names.WRAPPERS


def trained(f):
    """(model name, event): modules whose parameters go into an optimizer, variables a tape differentiates; not
    where rank 0 alone runs it (an LR range test on a copy of the model: no replica trains it)."""
    out = []
    for e in f.s.events:
        if f.on_rank0_alone(e):
            continue
        attr = getattr(e.node.func, "attr", "")
        if attr in ("parameters", "named_parameters") and e.ctx.reached and feeds_optimizer(f, e):
            out += [(dotted(m), e) for m in elements(f, e.node.func.value, e) if dotted(m)]
        elif attr == "gradient" and len(e.node.args) > 1:
            # the variables as written, or through the names that hold them (`variables = a.trainable_variables
            # + b.trainable_variables`, then `tape.gradient(loss, variables)`)
            for made in [e.node.args[1], *f.origins(e.node.args[1])]:
                for n in ast.walk(made):
                    if isinstance(n, ast.Attribute) and dotted(n.value) and (dotted(n.value), e) not in out and (
                            n.attr in ("trainable_variables", "trainable_weights") or _model_object(f, n.value, e)):
                        out.append((dotted(n.value), e))  # (`model.dense_vars`, a list the model class keeps)
    return out


_MODEL_BASES = ("keras.", "tensorflow.keras.", "tf_keras.", "torch.nn.")


def _model_object(f, node, at):
    """`node` holds an instance of the project's class built on a framework's model or layer class."""
    if not isinstance(node, (ast.Name, ast.Attribute)):
        return False
    made = origin(f, node, at)
    cls = f.s.defined(made.func) if made is not None and isinstance(made.func, (ast.Name, ast.Attribute)) else None
    if made is not None and cls is None and f.unread_maker(node) is not None:
        return True  # made by the project's code that is not there (`CTRModel(...)` of an absent module)
    return isinstance(cls, ast.ClassDef) and any(b.startswith(_MODEL_BASES) for b in f.s.library_bases(cls))


def feeds_optimizer(f, e):
    """model.parameters() given to an optimizer (directly, in a list or param-group dict, through a name
    assigned them, or in add_param_group)."""
    return any(f.mentions(a, lambda n: n is e.node) for x in optimizer_calls(f)
               for a in x.node.args + [k.value for k in x.node.keywords])


def optimizer_calls(f):
    """Calls that make an optimizer or add parameters to one: by their class (the framework's own), or by what
    the code does with their result (it steps, or Horovod's wrapper takes it as the optimizer); and
    add_param_group. Horovod's wrapper itself takes names for the parameters, not what trains them."""
    if getattr(f, "_step6_optimizers", None) is None:
        made = set()
        for s in f.s.events:
            if getattr(s.node.func, "attr", "") == "step":
                made.add(origin(f, s.node.func.value, s))
            elif wrapper(f, s.node) and s.node.args:
                made.add(origin(f, s.node.args[0], s))
        f._rules_b_optimizers = [x for x in f.s.events if x.ctx.reached and not wrapper(f, x.node) and (
            x.node in made or names.OPTIMIZER_CLASS.match(f.s.qual(x.node.func))
            or getattr(x.node.func, "attr", "") == "add_param_group")]
    return f._rules_b_optimizers


# Methods that only a model (a torch Module, a Keras Model) is given: calling one says the object is a model.
MODEL_METHODS = ("parameters", "named_parameters", "state_dict", "load_state_dict", "zero_grad", "fit", "compile",
                  "train_on_batch", "save_weights", "load_weights", "get_weights", "set_weights")


def model_refs(f):
    """Refs of the objects the script uses as models: those an optimizer trains, and the receivers of a
    model's own methods (computed once)."""
    if getattr(f, "_rules_b_models", None) is None:
        refs = [Ref(f, name, e) for name, e in trained(f)]
        for e in f.s.events:
            func = e.node.func
            if isinstance(func, ast.Attribute) and func.attr in MODEL_METHODS and dotted(func.value) and \
                    not f.s.api(func) and dotted(func.value).split(".")[0] not in f.s.aliases:
                refs.append(Ref(f, dotted(func.value), e))
        f._rules_b_models = refs
    return f._rules_b_models


def is_model(f, node, at):
    name = dotted(node)
    if not name:
        return False
    ref = Ref(f, name, at)
    return any(ref.within(m) for m in model_refs(f))  # the model, or a part of it


def holds_model_state(f, node, at, depth=0):
    """The value holds a model's (or optimizer's) state: a state_dict / weights / variables of something, or a
    model object itself, through names, dicts, lists and the script's own functions' returns; an unread
    function given a model (a helper building the checkpoint) too. A model's output (`model(x)`) does not."""
    if depth > 10 or node is None:
        return False
    deeper = lambda n, a=at: holds_model_state(f, n, a, depth + 1)  # noqa: E731 - a local shorthand
    if isinstance(node, ast.Attribute) and node.attr in STATE:
        return True
    if isinstance(node, (ast.Name, ast.Attribute)):
        return is_model(f, node, at) or any(deeper(v, a) for v, a in reaching(f, node, at))
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in STATE:
            return True
        if returned(f, node, at):
            return any(deeper(v, a) for v, a in returned(f, node, at))
        if isinstance(func, (ast.Name, ast.Attribute)) and is_model(f, func, at):
            return False  # the model called: its output
        if isinstance(func, ast.Attribute) and imported(f, func) is None:
            return deeper(func.value)  # state.copy(), model.cpu(), ckpt.items()
        return any(deeper(a) for a in node.args + [k.value for k in node.keywords])
    if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
        # `{k: v.cpu() for k, v in model.state_dict().items()}`: made of what it iterates; `{k: v.state_dict()
        # for k, v in parts.items()}`: of what each element is
        elements = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
        return any(deeper(g.iter) for g in node.generators) or any(deeper(x) for x in elements)
    return any(deeper(c) for c in ast.iter_child_nodes(node) if isinstance(c, ast.expr))
