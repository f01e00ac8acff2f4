"""`hvdkit check` on a script whose Horovod set-up lives in a module that is not there (issue 39: "missing"
only when every path that runs has been read). With no hvd.init() in the code read, a call into absent code
that runs before the first Horovod call that needs init may be where Horovod is set up, whatever it is
handed (nothing, literals, the options, a config another absent call loaded): "no hvd.init() call" becomes
"cannot tell", naming it. When the absent code runs only after that first Horovod call, init would come too
late there: "missing" stays.

Written from scratch for these tests: a point-cloud classifier's entry script, its package left out."""
import textwrap

from hvdkit.check.findings import MISSING, UNKNOWN
from hvdkit.check.static import analyze

SCRIPT = textwrap.dedent("""
    import argparse

    import tensorflow as tf
    from tensorflow import keras
    import horovod.tensorflow.keras as hvd

    from pcls.data import load_clouds
    from pcls.env import setup_horovod
    from pcls.model import PointNet


    def main():
        p = argparse.ArgumentParser()
        p.add_argument("--data", default="data/modelnet40.h5")
        p.add_argument("--lr", type=float, default=1e-3)
        args = p.parse_args()
        SETUP
        train = load_clouds(args.data).shard(hvd.size(), hvd.rank()).batch(32)
        model = PointNet(classes=40)
        opt = hvd.DistributedOptimizer(keras.optimizers.Adam(args.lr * hvd.size()))
        model.compile(optimizer=opt, loss="sparse_categorical_crossentropy")
        model.fit(train, epochs=10, callbacks=[hvd.callbacks.BroadcastGlobalVariablesCallback(0)],
                  verbose=2 if hvd.rank() == 0 else 0)


    if __name__ == "__main__":
        main()
""").lstrip()


def _step1(tmp_path, setup):
    path = tmp_path / "train.py"
    path.write_text(SCRIPT.replace("SETUP", setup))
    (tmp_path / "pyproject.toml").write_text("[project]\nname = \"pcls\"\n")
    findings, _, _ = analyze(str(path))
    return findings[1]


def test_a_setup_call_handed_only_literals_may_init_horovod(tmp_path):
    f = _step1(tmp_path, "setup_horovod(seed=42)")
    assert f.verdict == UNKNOWN
    assert "setup_horovod(...)" in f.evidence


def test_a_setup_call_handed_nothing_may_init_horovod(tmp_path):
    assert _step1(tmp_path, "setup_horovod()").verdict == UNKNOWN


def test_a_call_handed_the_options_may_init_horovod(tmp_path):
    f = _step1(tmp_path, "cfg = load_config(args.data)\n    setup_horovod(cfg)")
    assert f.verdict == UNKNOWN
    assert "setup_horovod(...)" in f.evidence


def test_absent_code_that_runs_only_after_the_first_horovod_call_leaves_init_missing(tmp_path):
    path = tmp_path / "train.py"
    path.write_text(SCRIPT.replace("SETUP", 'print("workers:", hvd.size())'))
    (tmp_path / "pyproject.toml").write_text("[project]\nname = \"pcls\"\n")
    findings, _, _ = analyze(str(path))
    assert findings[1].verdict == MISSING
