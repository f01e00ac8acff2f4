"""The project a script belongs to: its own modules, found and read as Python would import them.

The script's imports are looked up, in order, in the folders a run puts on `sys.path` (`sys.path.insert(0,
...)` calls the code makes at fixed paths, the script's own folder, its `sys.path.append(...)` calls) and
then in the script's parent folders up to the project's root: the first folder holding .git,
pyproject.toml, setup.py or setup.cfg, or the root given (`hvdkit check --root DIR`); with neither, the
script's folder alone. Last come the root's source folders that installing the project puts on sys.path (a
`src` layout, pyproject.toml's setuptools `where` / `package-dir`: source_folders). Relative imports
resolve against the importing module's package. Names are matched case-sensitively, as on Linux. A module
that is found is parsed once (`Module`); its line numbers are `Line`s that carry its path relative to the
root, so that an event or a verdict read there says where it is. No module is imported or run.
"""
import ast
import importlib.machinery
import os
import site
import sys
import sysconfig

from hvdkit.check.defs import Defs, dotted

MARKERS = (".git", "pyproject.toml", "setup.py", "setup.cfg")
# Never the project's own modules: Horovod's and hvdkit's API, the frameworks, modules loaded at start-up.
NEVER_LOCAL = ("horovod", "hvdkit", "torch", "tensorflow", "keras", "tf_keras", "numpy", "jax", "os", "io", "abc",
               "site", "stat", "codecs", "posixpath", "genericpath", "encodings", "importlib", "zipimport")
# Well-known third-party packages (import names) that know nothing of Horovod, whether or not they are
# installed where the check runs: not the project's own code when absent here, but a library ('library': it does
# a Horovod step only with what it is handed, Facts.acts_itself). Packages that may run Horovod themselves
# (ray, pytorch_lightning, accelerate, deepspeed, petastorm, sparkdl) are not listed.
THIRD_PARTY = frozenset((
    "transformers", "tokenizers", "sentencepiece", "pytorch_pretrained_bert", "pytorch_transformers", "timm",
    "tensorflow_datasets", "tensorflow_addons", "tensorflow_hub", "tensorflow_text", "tensorflow_io",
    "tensorflow_probability", "torchaudio", "torchtext", "torch_geometric", "torch_scatter", "torch_sparse", "dgl",
    "ogb", "apex", "numba", "sonnet", "deepctr", "warpctc_pytorch", "einops", "albumentations", "skimage", "nltk",
    "wandb", "mlflow", "tensorboardX", "tensorboard", "GPUtil", "nvtx", "pynvml", "ptvsd", "pyspark", "h5py", "yaml",
    "absl", "addict", "easydict", "omegaconf"))
MAX_MODULES = 200  # a project's own modules read, at most (a whole site-packages tree is no project)
MAX_BYTES = 2_000_000  # a module larger than this is not read (generated code)


class Line(int):
    """A line number of a module other than the checked script: an int that knows its file (relative to the
    project's root). Printed as "45 of utils.py", so that evidence like f"line {n}" names the file."""

    def __new__(cls, number, file):
        out = int.__new__(cls, number)
        out.file = file
        return out

    def __str__(self):
        return f"{int(self)} of {self.file}"

    def __format__(self, spec):
        return str(self) if not spec else format(int(self), spec)

    def __repr__(self):
        return int.__repr__(self)


class Module:
    """One parsed file: its tree (parents linked), definitions, source lines and import spellings.
    `rel` is None for the checked script, else its path relative to the project's root; `name` is its dotted
    name as imported ('__main__' for the script), `package` the package its relative imports start from."""

    def __init__(self, path, source, rel=None, name="__main__", is_package=False):
        self.path, self.rel, self.name, self.source = path, rel, name, source
        self.package = name if is_package else (name.rpartition(".")[0] if name != "__main__" else "")
        self.tree = ast.parse(source, filename=path)
        self.lines = source.splitlines()
        # One pass over the tree: parents linked, names and definitions tagged with their module, line numbers
        # made Lines; the functions, imports and sys.path edits noted for later.
        self.functions, imports, self.path_edits = [], [], []
        for node in ast.walk(self.tree):
            for child in ast.iter_child_nodes(node):
                child.parent = node
            if isinstance(node, (ast.Name, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.alias)):
                node.hk_module = self
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    self.functions.append(node)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                imports.append(node)
            elif isinstance(node, (ast.Call, ast.AugAssign)):
                self.path_edits.append(node)
            if rel is not None and getattr(node, "lineno", None) is not None:
                node.lineno = Line(node.lineno, rel)
                if getattr(node, "end_lineno", None) is not None:
                    node.end_lineno = Line(node.end_lineno, rel)
        self.tree.hk_module = self
        self.defs = Defs(self.tree)
        self.aliases = import_spellings(imports)
        self.star_imports = [i for i in imports if isinstance(i, ast.ImportFrom) and i.names[0].name == "*"]

    @property
    def main(self):
        return self.rel is None

    def line_text(self, line):
        text = self.lines[line - 1].strip() if 0 < line <= len(self.lines) else ""
        return text.split("  #")[0].rstrip()  # an inline comment is not evidence


def import_spellings(imports):
    """{name: dotted module path} for import statements (those anywhere in a module), by spelling: the
    fallback for names whose definition is not known (and what a module says it imports)."""
    out = {}
    for node in imports:
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.asname:
                    out[a.asname] = a.name
                else:
                    out[a.name.split(".")[0]] = a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for a in node.names:
                out[a.asname or a.name] = f"{node.module}.{a.name}"
    return out


def module_of(node, default=None):
    """The Module a node belongs to (names, definitions and trees are tagged; others through parents)."""
    while node is not None:
        mod = getattr(node, "hk_module", None)
        if isinstance(mod, Module):
            return mod
        node = getattr(node, "parent", None)
    return default


def find_root(folder):
    """The nearest folder, from `folder` upward, that holds one of MARKERS; None when there is none."""
    folder = os.path.abspath(folder)
    while True:
        if any(os.path.exists(os.path.join(folder, m)) for m in MARKERS):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def source_folders(root):
    """The folders under the project's root that its installation puts on sys.path (`pip install -e .`): the
    `where` folders of pyproject.toml's [tool.setuptools.packages.find] and the folder its `package-dir`
    maps the top level to, else a `src` folder (the src layout setuptools, hatch and poetry find by
    default). Imports from them are the project's own code, as once installed."""
    found = []
    try:
        import tomllib
        with open(os.path.join(root, "pyproject.toml"), "rb") as fh:
            tool = tomllib.load(fh).get("tool", {}).get("setuptools", {})
        where = tool.get("packages", {}).get("find", {}).get("where", []) if isinstance(tool.get("packages"), dict) \
            else []
        found += [w for w in where if isinstance(w, str)]
        top = tool.get("package-dir", {}).get("") if isinstance(tool.get("package-dir"), dict) else None
        found += [top] if isinstance(top, str) else []
    except (OSError, ValueError, AttributeError):
        pass  # no pyproject.toml, or one that does not parse: the default layout
    found.append("src")
    out = []
    for f in found:
        folder = os.path.normpath(os.path.join(root, f))
        if folder != root and os.path.isdir(folder) and (folder + os.sep).startswith(root + os.sep) \
                and folder not in out:
            out.append(folder)
    return out


class Project:
    def __init__(self, script, root=None):
        self.script = os.path.abspath(script)
        self.folder = os.path.dirname(self.script)
        found = os.path.abspath(root) if root else find_root(self.folder)
        self.root = found or self.folder
        ups, folder = [], self.folder
        while found and folder != self.root and os.path.dirname(folder) != folder and \
                (folder + os.sep).startswith(self.root + os.sep):
            folder = os.path.dirname(folder)
            ups.append(folder)
        if found and self.root != self.folder and self.root not in ups:
            ups.append(self.root)  # a root given that is not above the script: still searched
        if found:
            ups += [f for f in source_folders(self.root) if f not in ups]
        self.inserted, self.appended, self.parents = [], [], ups
        # {dotted name: Horovod module}: names the script imports from its own modules that are not there, taken
        # as Horovod because the script uses them as Horovod's API (static.load decides)
        self.assumed = {}
        self.modules = {}  # absolute path: Module, or None when it cannot be parsed
        self.failed = {}  # absolute path: the SyntaxError / UnicodeDecodeError that stopped it
        self._entries, self._found = {}, {}

    @property
    def search(self):
        """The folders imports are looked up in, in Python's order (then the parents up to the root)."""
        out = []
        for f in self.inserted + [self.folder] + self.appended + self.parents:
            if f not in out:
                out.append(f)
        return out

    def add_path(self, folder, first):
        folder = os.path.normpath(folder)
        self._found = {}
        (self.inserted if first else self.appended).append(folder)

    def rel(self, path):
        return os.path.relpath(path, self.root)

    def read(self):
        """The files read, relative to the root, the script first."""
        return [self.rel(self.script)] + [m.rel for m in self.modules.values() if m is not None]

    # --- finding modules -------------------------------------------------------------------------------
    def _listing(self, folder):
        if folder not in self._entries:
            try:
                self._entries[folder] = set(os.listdir(folder))
            except OSError:
                self._entries[folder] = set()
        return self._entries[folder]

    def _in(self, folder, parts):
        """(path, is_package) of module `parts` under `folder`: a package's __init__.py, a module file, or a
        namespace package's folder (path ending with os.sep); None when absent."""
        for p in parts[:-1]:
            if p not in self._listing(folder) or not os.path.isdir(os.path.join(folder, p)):
                return None
            folder = os.path.join(folder, p)
        last, listing = parts[-1], self._listing(folder)
        pkg = os.path.join(folder, last)
        if last in listing and os.path.isdir(pkg):
            if "__init__.py" in self._listing(pkg):
                return os.path.join(pkg, "__init__.py"), True
        if last + ".py" in listing:
            return os.path.join(folder, last + ".py"), False
        if last in listing and os.path.isdir(pkg):
            return pkg + os.sep, True
        return None

    def find(self, dotted):
        """(path, is_package) of the module `dotted` in the project (a regular module or package first, a
        namespace folder last, as Python's path finder), or None. Horovod's and hvdkit's modules and the
        frameworks are never the project's (the rules know them by name); nor is a module Python has loaded
        before any script runs (sys, os, time); a folder without __init__.py does not hide an installed or
        standard module of its name (a namespace package comes last on the whole sys.path)."""
        parts = dotted.split(".")
        if parts[0] in NEVER_LOCAL or parts[0] in sys.builtin_module_names:
            return None
        if dotted not in self._found:
            got = self._find(parts)
            if got is not None and len(parts) > 1 and self.find(parts[0]) is None:
                got = None
            if got is not None and len(parts) == 1 and got[0].endswith(os.sep) and self.kind(dotted) != "absent":
                got = None
            self._found[dotted] = got
        return self._found[dotted]

    def _find(self, parts):
        namespace = None
        for folder in self.search:
            got = self._in(folder, parts)
            if got is None:
                continue
            if not got[0].endswith(os.sep):
                return got
            namespace = namespace or got
        return namespace

    def local_top(self, top):
        """The first part of a dotted name is a module or package of the project."""
        return self.find(top) is not None

    def absolute(self, importer, module, level):
        """The absolute dotted name of `from <level dots><module> import ...` in `importer`."""
        if not level:
            return module or ""
        base = importer.package.split(".") if importer.package else []
        base = base[:len(base) - (level - 1)] if level > 1 else base
        return ".".join(base + ([module] if module else []))

    def module(self, dotted):
        """The Module for `dotted` (None when absent from the project or unreadable)."""
        got = self.find(dotted)
        if got is None:
            return None
        path, is_package = got
        key = os.path.normpath(path)
        if key not in self.modules:
            if len(self.modules) >= MAX_MODULES:
                return None
            self.modules[key] = self._parse(path, dotted, is_package)
        return self.modules[key]

    def _parse(self, path, dotted, is_package):
        if path.endswith(os.sep):  # a namespace package: no code of its own
            return Module(path, "", self.rel(path.rstrip(os.sep)), dotted, True)
        try:
            if os.path.getsize(path) > MAX_BYTES:
                return None
            with open(path, encoding="utf-8") as fh:
                source = fh.read()
            return Module(path, source, self.rel(path), dotted, is_package)
        except (OSError, UnicodeDecodeError, SyntaxError, ValueError) as exc:
            self.failed[os.path.normpath(path)] = exc
            return None

    def kind(self, dotted):
        """What a module that is not in the project is: 'stdlib', 'library' (installed here, or a well-known
        package of THIRD_PARTY) or 'absent'."""
        top = dotted.split(".")[0]
        if top in sys.stdlib_module_names or top in sys.builtin_module_names:
            return "stdlib"
        return "library" if top in THIRD_PARTY or _installed(top) else "absent"


_SITE = None


def _installed(top):
    """The top-level name is installed in this interpreter's site-packages (found, never imported)."""
    global _SITE
    if _SITE is None:
        dirs = {sysconfig.get_paths()[k] for k in ("purelib", "platlib")}
        dirs |= set(getattr(site, "getsitepackages", lambda: [])())
        _SITE = [d for d in dirs if os.path.isdir(d)]
    try:
        return importlib.machinery.PathFinder.find_spec(top, _SITE) is not None
    except (ImportError, ValueError):
        return False


def path_value(node, here, cwd):
    """The folder a `sys.path` entry expression names, for expressions made of `__file__`, string constants,
    os.path's dirname/abspath/realpath/normpath/join/expanduser, `os.pardir`, pathlib's Path(...), `.parent`, `/`,
    `.resolve()` and str(); relative strings are taken from `cwd`. None for anything else."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return os.path.join(cwd, os.path.expanduser(node.value))
    if isinstance(node, ast.Name) and node.id == "__file__":
        return here
    if isinstance(node, ast.Attribute) and node.attr in ("pardir", "curdir") and \
            (dotted(node.value) or "") in ("os", "os.path"):
        return os.path.join(cwd, os.pardir if node.attr == "pardir" else os.curdir)  # `os.pardir` is ".."
    if isinstance(node, ast.Attribute) and node.attr == "parent":
        inner = path_value(node.value, here, cwd)
        return os.path.dirname(inner) if inner else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        a, b = path_value(node.left, here, cwd), path_value(node.right, here, "")
        return os.path.join(a, b) if a and b is not None else None
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    last = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    if last in ("resolve", "absolute") and isinstance(func, ast.Attribute):
        return path_value(func.value, here, cwd)
    if last == "getcwd":
        return cwd
    args = [path_value(a, here, cwd if i == 0 else "") for i, a in enumerate(node.args)]
    if not args or any(a is None for a in args):
        return None
    if last == "join":
        return os.path.join(*args)
    if last == "dirname":
        return os.path.dirname(args[0])
    if last in ("abspath", "realpath", "normpath", "expanduser", "str", "fspath", "Path", "PurePath"):
        return os.path.normpath(args[0])
    return None


def sys_path_edits(nodes, here, cwd):
    """[(folder, first)] for the `sys.path.insert(0, X)` (first) and `sys.path.append(X)` / `extend([...])` /
    `+= [...]` among `nodes` (a module's calls and augmented assignments) whose X names a fixed folder."""
    out = []
    for node in nodes:
        target, values, first = None, [], False
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            target = node.func.value
            if node.func.attr == "insert" and len(node.args) == 2:
                values, first = [node.args[1]], isinstance(node.args[0], ast.Constant) and node.args[0].value == 0
            elif node.func.attr == "append" and node.args:
                values = [node.args[0]]
            elif node.func.attr == "extend" and node.args and isinstance(node.args[0], (ast.List, ast.Tuple)):
                values = node.args[0].elts
        elif isinstance(node, ast.AugAssign) and isinstance(node.value, (ast.List, ast.Tuple)):
            target, values = node.target, node.value.elts
        if not (isinstance(target, ast.Attribute) and target.attr == "path" and isinstance(target.value, ast.Name)
                and target.value.id == "sys"):
            continue
        for v in values:
            folder = path_value(v, here, cwd)
            if folder:
                out.append((folder, first))
    return out


def import_crash(script):
    """The first import of the project's own code that raises whenever the script trains (the walk records
    them in Script.import_failures), as the report's crash ({"line", "file", "error", "why"}), or None (the
    seam with the crash finding: static.py calls it): a module of a package the project has that is not
    there (`import models.bert_one`, a case mismatch `models.Resnet` for models/resnet.py), or one that does
    not parse. Not under a condition, nor in a `try` that catches the error. A file missing from a package
    counts in the checked script itself; deeper in the project's modules only when the folder shows the
    mistake (a name that differs in case, a module that does not parse): a project copied in part (a
    size limit, a file budget) lacks files its repository has."""
    for f in script.import_failures:
        if not f.ctx.reached or f.ctx.guards or _caught(f.stmt):
            continue
        if getattr(f.stmt.lineno, "file", None) is not None and not f.evident:
            continue
        return {"line": int(f.stmt.lineno), "file": getattr(f.stmt.lineno, "file", None), "error": f.error,
                "why": f.why}
    return None


def _caught(stmt):
    """The statement is in the body of a `try` whose handlers catch ImportError (or anything wider)."""
    child, p = stmt, getattr(stmt, "parent", None)
    while p is not None:
        if hasattr(p, "handlers") and child in getattr(p, "body", ()):
            for h in p.handlers:
                caught = [] if h.type is None else h.type.elts if hasattr(h.type, "elts") else [h.type]
                if h.type is None or any(getattr(c, "id", getattr(c, "attr", "")) in (
                        "ImportError", "ModuleNotFoundError", "Exception", "BaseException", "SyntaxError")
                        for c in caught):
                    return True
        child, p = p, getattr(p, "parent", None)
    return False
