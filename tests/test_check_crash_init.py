"""Horovod's queries evaluated before hvd.init() (issue 39, item 5): `hvd.size()` asked at the level of a
settings module that the script imports before `main()` calls init raises `ValueError: Horovod has not been
initialized` on every rank. Correct twins: init first, a callback's method that asks only when fit runs it.

The scripts are test_check_crash.py's trainers (written from scratch for these tests) with a settings
module of their own."""
import textwrap

from crash_scripts import Source, check, check_project, line_of
from test_check_crash import DATA_CODE, KERAS


def src(text):
    return Source(textwrap.dedent(text).lstrip())


CONFIG_PROJECT = {
    "train.py": DATA_CODE.replace("import os\n", "import os\n\nfrom settings import scaled_lr\n").replace(
        "lr=args.lr * hvd.size()", "lr=scaled_lr(args.lr)"),
    "settings.py": src("""
        import horovod.torch as hvd

        BASE_LR = 0.05


        def scaled_lr(base):
            return base * hvd.size()
    """),
}


def test_the_correct_settings_module_has_no_crash(tmp_path):
    crash, flagged, _ = check_project(tmp_path, CONFIG_PROJECT)
    assert (crash, flagged) == (None, {})


def test_the_size_asked_at_a_modules_import_before_init_is_a_value_error(tmp_path):
    broken = {**CONFIG_PROJECT, "settings.py": CONFIG_PROJECT["settings.py"].replace(
        "BASE_LR = 0.05\n", "BASE_LR = 0.05\nWORLD = hvd.size()\n")}
    crash, flagged, _ = check_project(tmp_path, broken)
    assert crash == {"line": line_of(broken["settings.py"], "WORLD = hvd.size()"), "file": "settings.py",
                     "error": "ValueError: Horovod has not been initialized; use hvd.init().",
                     "why": f"hvd.size() runs before hvd.init() at line {line_of(broken['train.py'], 'hvd.init()')}"}
    assert flagged == {1: "wrong"}  # step 1's own verdict: a Horovod call before init


def test_queries_that_run_after_init_are_not_crashes(tmp_path):
    # init at the settings module's import, before it asks
    first = {**CONFIG_PROJECT, "settings.py": CONFIG_PROJECT["settings.py"].replace(
        "BASE_LR = 0.05\n", "hvd.init()\nBASE_LR = 0.05\nWORLD = hvd.size()\n")}
    assert check_project(tmp_path / "first", first)[0] is None
    # a Keras callback made before init asks for the rank only when fit runs it
    keras = KERAS.replace("    hvd.init()\n", "    logger = EpochLogger(args)\n    hvd.init()\n").replace(
        "EpochLogger(args)]", "logger]")
    assert check(tmp_path, keras)[0] is None


# --- no init at all: the project's own set-up helper is never called --------------------------------------
DIST_PROJECT = {
    "train.py": DATA_CODE.replace("import os\n", "import os\n\nfrom dist_utils import is_main, setup\n").replace(
        "    hvd.init()\n", "    setup()\n").replace("if hvd.rank() == 0:", "if is_main():"),
    "dist_utils.py": src("""
        import horovod.torch as hvd


        def setup():
            hvd.init()
            return hvd.rank(), hvd.size()


        def is_main():
            return hvd.rank() == 0
    """),
}


def test_the_project_that_calls_its_set_up_helper_has_no_crash(tmp_path):
    crash, flagged, _ = check_project(tmp_path, DIST_PROJECT)
    assert (crash, flagged) == (None, {})


def test_a_query_when_no_init_runs_anywhere_read_is_a_value_error(tmp_path):
    # the set-up helper is defined but the script never calls it: the first query raises
    broken = {**DIST_PROJECT, "train.py": DIST_PROJECT["train.py"].replace("    setup()\n", "")}
    crash, flagged, _ = check_project(tmp_path, broken)
    assert crash is not None and crash["error"] == "ValueError: Horovod has not been initialized; use hvd.init()."
    assert crash["why"].endswith("runs and no hvd.init() does, in all the code read")
    # the first certain one: the sampler's, in build_loaders (set_device's is under a condition)
    assert (crash["file"], crash["line"]) == (None, line_of(broken["train.py"], "num_replicas=hvd.size()"))
    assert flagged[1] == "missing"


def test_no_crash_when_code_that_is_not_read_may_init(tmp_path):
    # the set-up comes from a module the project does not have: it may init (step 1 cannot tell)
    script = DIST_PROJECT["train.py"].replace("from dist_utils import is_main, setup\n",
                                              "from cluster import setup\nfrom dist_utils import is_main\n")
    unread = {"train.py": script,
              "dist_utils.py": DIST_PROJECT["dist_utils.py"]}
    crash, flagged, findings = check_project(tmp_path, unread)
    assert crash is None and 1 not in flagged and findings[1].verdict == "cannot tell"
