"""Statements that need a terminal: `a, b = os.popen("stty size").read().split()` (a progress-bar helper
copied between many training repositories) gets nothing from stty when stdin is not a terminal, and the
unpacking raises ValueError. Ranks started by mpirun (Open MPI 4, tried: every rank, even when mpirun
itself runs in a terminal) or horovodrun, and batch jobs, have none. (`os.get_terminal_size()` is no such
case: under mpirun it returns 0 x 0.)

Found in the script and in the project's modules whose code runs (where it is first imported, as the
walk runs them); crashes.Certain decides whether the statement runs for sure (a module's code at its level
runs with the import, under the import's conditions; a `try` around the import that catches the error
counts). A module the project folder lacks is not reported: a project may be read from a partial copy
(modules over a size or count limit left out), where a missing file is no evidence that the import fails.
"""
import ast


def find(names):
    """(statement, error, why, kind) for each statement of the code read that needs a terminal."""
    out = []
    for node in names.nodes:
        terminal = isinstance(node, (ast.Assign, ast.Expr, ast.AnnAssign)) and needs_terminal(node)
        if terminal:
            out.append((node, *terminal, terminal[0].split(":")[0]))
    return out


def needs_terminal(stmt):
    """(error, why) for a statement that needs a terminal, else None."""
    for node in ast.walk(stmt):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "popen" and \
                node.args and isinstance(node.args[0], ast.Constant) and \
                str(node.args[0].value).split()[:2] == ["stty", "size"] and isinstance(stmt, ast.Assign) and \
                any(isinstance(t, (ast.Tuple, ast.List)) for t in stmt.targets):
            n = max(len(t.elts) for t in stmt.targets if isinstance(t, (ast.Tuple, ast.List)))
            return (f"ValueError: not enough values to unpack (expected {n}, got 0)",
                    "`stty size` needs a terminal on stdin; ranks started by mpirun or horovodrun have none, so it "
                    "prints nothing")
    return None
