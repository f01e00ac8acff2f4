"""A reshape whose target shape is read from the tensor's own values: `tf.reshape(y, (y[0], 1))` where
`y.shape[0]` was meant. The shape then asks for as many elements as the first value says (a class label, a
pixel), and the tensor holds as many as it has: the reshape raises unless the two happen to be equal.
Tried on this machine: in a tf.function, `tf.reshape(y, (y[0], 1))` over y = [5, 1, 2] (int or float)
raises InvalidArgumentError "Input to reshape is a tensor with 3 values, but the requested shape has 5";
`torch.reshape(y, (y[0], 1))` over a float tensor raises TypeError ("argument 'shape' must be tuple of
ints, but found element of type Tensor"), over an int one RuntimeError ("shape '[5, 1]' is invalid for input
of size 3"); numpy's reshape raises TypeError or ValueError alike.

Counted: `tf.reshape(t, shape)`, `torch.reshape(t, shape)`, `numpy.reshape(t, shape)` and the methods
`t.reshape(...)` / `t.view(...)`, when the shape holds `t[i]` (an integer index of the same expression that
is reshaped). `t.shape[i]`, `t.size(i)`, `len(t)` are sizes, not values, and never count.
"""
import ast

FUNCTIONS = {"tensorflow.reshape": "InvalidArgumentError", "torch.reshape": "RuntimeError",
             "numpy.reshape": "ValueError"}
METHODS = ("reshape", "view")


def find(names):
    """(call, error, why, kind) for each reshape whose shape reads the reshaped tensor's values."""
    out = []
    for node in names.nodes:
        if not isinstance(node, ast.Call) or any(isinstance(a, ast.Starred) for a in node.args):
            continue
        q = names.qual(node.func)
        if q in FUNCTIONS and len(node.args) >= 2:
            tensor, shape, kind = node.args[0], node.args[1:], FUNCTIONS[q]
        elif isinstance(node.func, ast.Attribute) and node.func.attr in METHODS and node.args and \
                q.split(".")[0] not in ("tensorflow", "torch", "numpy"):
            tensor, shape = node.func.value, node.args
            kind = _method_error(names.s)
        else:
            continue
        value = next((v for v in _sizes(shape) if _reads_values_of(v, tensor)), None)
        if value is None:
            continue
        tensor_text, value_text = ast.unparse(tensor), ast.unparse(value)
        out.append((node, f"{kind}: the shape asked for holds {value_text}, a value of {tensor_text}, not a size",
                    f"{value_text} is an element of the tensor being reshaped (a label or a pixel); its size is "
                    f"{tensor_text}.shape[{ast.unparse(value.slice)}]: the element count matches only by chance",
                    kind))
    return out


def _method_error(script):
    """The error a reshape method raises, by the framework the script imports."""
    tops = {m.split(".")[0] for m in script.all_aliases()}
    return "RuntimeError" if "torch" in tops else "InvalidArgumentError" if tops & {"tensorflow", "keras"} else \
        "ValueError"


def _sizes(shape):
    """The size expressions of a reshape's shape argument(s): a tuple or list's elements, or the arguments."""
    if len(shape) == 1 and isinstance(shape[0], (ast.Tuple, ast.List)):
        return shape[0].elts
    return shape


def _reads_values_of(size, tensor):
    """`size` is `tensor[i]` with an integer literal i (an element, not a dimension)."""
    return isinstance(size, ast.Subscript) and isinstance(size.slice, ast.Constant) and \
        isinstance(size.slice.value, int) and not isinstance(size.slice.value, bool) and \
        ast.dump(size.value) == ast.dump(tensor)
