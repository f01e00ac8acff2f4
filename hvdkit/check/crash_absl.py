"""`FLAGS.x` read where no `flags.DEFINE_*("x", ...)` defines x: absl's FlagValues raises AttributeError.

absl keeps its flags in one registry per process (`absl.flags.FLAGS`), filled by the DEFINE calls of every
module imported. A read is reported only when the whole registry is known: every DEFINE call of the code read
names its flag with a literal, none copies or adopts flags from elsewhere (`DEFINE_flag`, `adopt_module_key_flags`,
`append_flag_values`), and every module the project imports is read, or is a library that defines no flags of its
own (the standard library and KNOWN_LIBRARIES). absl's own flags (logging's, app's help flags) and FlagValues'
methods are not flags to define.
"""
import ast
import sys

from hvdkit.check.script import KNOWN_LIBRARIES

FLAGS = "absl.flags.FLAGS"
# Defined by absl itself: absl.logging's and absl.app's flags, and absltest's.
ABSL_OWN = {"logtostderr", "alsologtostderr", "log_dir", "v", "verbosity", "logger_levels", "stderrthreshold",
            "showprefixforinfo", "run_with_pdb", "pdb_post_mortem", "pdb", "run_with_profiling", "profile_file",
            "use_cprofile_for_profiling", "only_check_args", "flagfile", "undefok", "helpfull", "helpshort",
            "helpxml", "help", "test_srcdir", "test_tmpdir", "test_random_seed", "test_randomize_ordering_seed",
            "xml_output_file"}
# FlagValues' own methods (absl-py 2.x), read off FLAGS without being flags.
FLAG_VALUES_METHODS = {
    "append_flag_values", "append_flags_into_file", "find_module_defining_flag", "find_module_id_defining_flag",
    "flag_values_dict", "flags_by_module_dict", "flags_by_module_id_dict", "flags_into_string", "get_flag_value",
    "get_flags_for_module", "get_help", "get_key_flags_for_module", "is_gnu_getopt", "is_parsed",
    "key_flags_by_module_dict", "main_module_help", "mark_as_parsed", "module_help", "read_flags_from_files",
    "register_flag_by_module", "register_flag_by_module_id", "register_key_flag_for_module", "remove_flag_values",
    "set_default", "set_gnu_getopt", "unparse_flags", "validate_all_flags", "write_help_in_xml_format"}
_OPEN = ("DEFINE_flag", "adopt_module_key_flags", "declare_key_flag", "append_flag_values")


def find(names):
    """(node, error, why, kind) for each `FLAGS.x` read of an undefined flag, when the registry is known."""
    defined, reads = set(), []
    for node in names.nodes:
        if isinstance(node, ast.Call):
            q = names.qual(node.func)
            if not q.startswith("absl.flags."):
                continue
            last = q.rsplit(".", 1)[-1]
            if last in _OPEN:
                return []
            if last.startswith("DEFINE"):
                name = node.args[1] if last == "DEFINE" and len(node.args) > 1 else node.args[0] if node.args else \
                    next((k.value for k in node.keywords if k.arg == "name"), None)
                if not (isinstance(name, ast.Constant) and isinstance(name.value, str)):
                    return []  # a flag named at run time: the registry is not known
                defined.add(name.value)
        elif isinstance(node, ast.Attribute) and names.qual(node.value) == FLAGS and not node.attr.startswith("_"):
            if not isinstance(node.ctx, ast.Load):
                return []  # a flag set by the code: leave the registry to run time
            reads.append(node)
    if not reads or not _all_read(names):
        return []
    return [(n, f"AttributeError: {n.attr}", f"no flags.DEFINE_* of the code read defines {n.attr!r} (absl's FLAGS "
             f"raises for an undefined flag)", "AttributeError")
            for n in reads if n.attr not in defined | ABSL_OWN | FLAG_VALUES_METHODS]


def _all_read(names):
    """Every module the code read imports is read too, or defines no flags (stdlib, a known library)."""
    s = names.s
    if any(u.kind in ("absent", "unparsed") for u in s.unread):
        return False
    for node in names.nodes:
        mods = [a.name for a in node.names] if isinstance(node, ast.Import) else \
            [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module else []
        for m in mods:
            top = m.split(".")[0]
            if top in KNOWN_LIBRARIES or top in sys.stdlib_module_names or top == "absl":
                continue
            if s.project is None or s.project.find(top) is None:
                return False
    return True
