"""`hvdkit check`, static pass: every mutant (made from make_mutants.py's table into a temporary directory)
flagged on its step and no other, the bases and the homework on none; the rules judge by what a step
achieves (Horovod's idiom, conditions true or never true on the first step); bad input is one line and
exit 2. Nothing here imports a framework or launches a rank."""
import json
import os
import subprocess
import sys
import textwrap

import pytest

from hvdkit.check import FLAGGED, OK, UNKNOWN, WRONG, MISSING
from hvdkit.check.static import analyze

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MUTANT_DIR = os.path.join(ROOT, "tests", "check_mutants")
sys.path.insert(0, MUTANT_DIR)
import make_mutants  # noqa: E402


def _flagged(path):
    findings, _, _ = analyze(path)
    return {n: f for n, f in findings.items() if f.verdict in FLAGGED}, findings


@pytest.fixture(scope="module")
def mutants(tmp_path_factory):
    """{file name: path} of every mutant, written from the table for this test run."""
    made = make_mutants.write(str(tmp_path_factory.mktemp("mutants")))
    return {os.path.basename(p): p for p in made.values()}


def test_kept_mutant_files_are_what_the_table_makes():
    assert len(make_mutants.MUTANTS) >= 24
    for kept in make_mutants.KEPT:
        flavour, step, kind = next(m[:3] for m in make_mutants.MUTANTS if make_mutants.name(*m[:3]) == kept)
        with open(os.path.join(MUTANT_DIR, kept)) as f:
            assert f.read() == make_mutants.source(flavour, step, kind), f"{kept}: rewrite it from make_mutants.py"


@pytest.mark.parametrize("flavour,step,kind", [m[:3] for m in make_mutants.MUTANTS],
                         ids=[make_mutants.name(*m[:3])[:-3] for m in make_mutants.MUTANTS])
def test_mutant_flagged_on_its_step_only(mutants, flavour, step, kind):
    flagged, findings = _flagged(mutants[make_mutants.name(flavour, step, kind)])
    assert list(flagged) == [step], {n: f.evidence for n, f in flagged.items()} or findings[step].evidence
    if kind == "broken" and flagged[step].line is not None:
        assert flagged[step].fix  # a wrong step says what to change


@pytest.mark.parametrize("path", [os.path.join(MUTANT_DIR, b) for b in make_mutants.BASES.values()]
                         + [os.path.join(ROOT, "homework", n)
                            for n in ("pytorch_mnist_hvd.py", "tensorflow2_mnist_hvd.py")]
                         + [os.path.join(ROOT, "examples", "resnet34", n)
                            for n in ("train_hvd.py", "train_hvd_torch.py")])
def test_correct_scripts_have_all_eight_steps_ok(path):
    findings, _, _ = analyze(path)
    assert {n: f.verdict for n, f in findings.items()} == {n: OK for n in range(1, 9)}


def _write(tmp_path, body, name="train.py"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    return str(path)


HVDKIT_STEP = """
    import keras
    import hvdkit.tensorflow as hk
    ctx = hk.init()
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    opt, loss_fn = keras.optimizers.SGD(0.01 * ctx.size), keras.losses.MeanSquaredError()  # a sum on top: wrong
    batches = []

    def train_step(x, y):  # the user's own function of the same name is no wrapper
        return x

    {step}
    for x, y in batches:
        train_step(x, y)
"""


@pytest.mark.parametrize("step, verdict", [
    ("train_step = hk.train_step(model, loss_fn, opt)", OK),
    ("train_step = hk.TrainStep(model, loss_fn, opt, jit_compile=False)", OK),
    ('train_step = hk.train_step(model, loss_fn, opt, op="sum")', WRONG),
    ('opt = hk.distributed_optimizer(opt, op="sum")', WRONG),
    ("pass", MISSING)])
def test_hvdkit_train_step_is_step_5_and_a_function_of_that_name_is_not(tmp_path, step, verdict):
    findings, _, _ = analyze(_write(tmp_path, HVDKIT_STEP.format(step=step)))
    assert findings[5].verdict == verdict, findings[5]


HOROVOD_IDIOM = """
    import tensorflow as tf
    import horovod.tensorflow as hvd
    hvd.init()
    (x, y), _ = tf.keras.datasets.mnist.load_data()
    dataset = tf.data.Dataset.from_tensor_slices((x, y)).repeat().shuffle(10000{seed}).batch(128)
    for batch, (images, labels) in enumerate(dataset.take(10000 // hvd.size())):
        pass
"""


def test_horovod_idiom_per_rank_shuffle_and_divided_steps_is_ok(tmp_path):
    findings, _, _ = analyze(_write(tmp_path, HOROVOD_IDIOM.format(seed="")))
    assert findings[3].verdict == OK and "idiom" in findings[3].evidence


def test_horovod_idiom_with_the_same_shuffle_seed_on_every_rank_is_wrong(tmp_path):
    findings, _, _ = analyze(_write(tmp_path, HOROVOD_IDIOM.format(seed=", seed=42")))
    assert findings[3].verdict == WRONG and "seeded alike" in findings[3].evidence
    findings, _, _ = analyze(_write(tmp_path, HOROVOD_IDIOM.format(seed=", seed=42 + hvd.rank()")))
    assert findings[3].verdict == OK


def test_torch_steps_divided_twice(tmp_path):
    src = """
        import torch, horovod.torch as hvd
        from torch.utils.data.distributed import DistributedSampler
        hvd.init()
        sampler = DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.rank())
        loader = torch.utils.data.DataLoader(ds, batch_size=32, sampler=sampler)
        steps = len(loader) // hvd.size()
        for i, (x, y) in zip(range(steps), loader):
            pass
    """
    findings, _, _ = analyze(_write(tmp_path, src))
    assert findings[3].verdict == WRONG and "twice" in findings[3].evidence


BROADCAST_IN_LOOP = """
    import torch, horovod.torch as hvd
    hvd.init()
    model = torch.nn.Linear(2, 2)
    opt = hvd.DistributedOptimizer(torch.optim.SGD(model.parameters(), lr=0.1 * hvd.size()))
    {setup}
    for epoch in range({epochs}):
        for batch_idx, (x, y) in enumerate(loader):
            {before}
            if {cond}:
                hvd.broadcast_parameters(model.state_dict(), root_rank=0)
            {after}
            opt.step()
"""


@pytest.mark.parametrize("setup,epochs,before,cond,after,verdict", [
    ("", "3", "", "batch_idx == 0 and epoch == 0", "", OK),
    ("", "1, 4", "", "batch_idx == 0 and epoch == 0", "", WRONG),          # epochs start at 1
    ("nstep = len(x_train) // 64", "3", "", "nstep == 0 and epoch == 0", "", WRONG),  # steps per epoch > 0
    ("step = 0", "3", "step += 1", "step == 0", "", WRONG),                 # tested after the increment
    ("step = 0", "3", "", "step == 0", "step += 1", OK),                   # tested before it
    ("", "3", "", "hvd.rank() == 0", "", WRONG),                           # a collective on one rank
    ("", "3", "", "args.sync", "", UNKNOWN),
], ids=["first-step", "epochs-from-1", "nstep-zero", "after-increment", "before-increment", "rank-0-only",
        "unknown-flag"])
def test_broadcast_condition_judged_on_the_first_step(tmp_path, setup, epochs, before, cond, after, verdict):
    src = BROADCAST_IN_LOOP.format(setup=setup, epochs=epochs, before=before or "pass", cond=cond,
                                   after=after or "pass")
    findings, _, _ = analyze(_write(tmp_path, src))
    assert findings[6].verdict == verdict, findings[6].evidence


def test_condition_followed_through_a_function_parameter(tmp_path):
    src = """
        import tensorflow as tf, horovod.tensorflow as hvd
        hvd.init()
        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        opt = tf.keras.optimizers.SGD(0.1 * hvd.size())
        dataset = tf.data.Dataset.range(4)
        def step(x, first_batch):
            opt.apply_gradients([])
            if first_batch:
                hvd.broadcast_variables(model.variables, root_rank=0)
        def train(data):
            for i, x in enumerate(data):
                step(x, {arg})
        train(dataset)
    """
    assert analyze(_write(tmp_path, src.format(arg="i == 0")))[0][6].verdict == OK
    assert analyze(_write(tmp_path, src.format(arg="i == 1")))[0][6].verdict == WRONG


def _cli(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "hvdkit", "check", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=60)


def test_cli_exit_status_and_json(mutants):
    base = os.path.join(MUTANT_DIR, "base_torch.py")
    ok = _cli(base)
    assert ok.returncode == 0 and "no step missing or wrong" in ok.stdout
    bad = _cli(mutants["tf_loop_s6_broken.py"], "--json")
    assert bad.returncode == 1
    report = json.loads(bad.stdout)
    assert report["flagged"] == [6] and report["steps"]["6"]["verdict"] == WRONG and report["steps"]["6"]["line"]
    assert report["steps"]["1"]["verdict"] == OK and report["exit_status"] == 1


def test_cli_missing_step_exits_1(mutants):
    assert _cli(mutants["keras_fit_s8_removed.py"]).returncode == 1
    assert analyze(mutants["keras_fit_s8_removed.py"])[0][8].verdict == MISSING


@pytest.mark.parametrize("body,name,expected", [
    (None, "nope.py", "no such file"),
    ("x = (\n", "broken.py", "syntax error"),
    ("import torch\nprint(torch.ones(1))\n", "plain.py", "not a Horovod script"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, body, name, expected):
    if body is not None:
        (tmp_path / name).write_text(body)
    r = _cli(str(tmp_path / name))
    assert r.returncode == 2 and r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and expected in lines[0] and lines[0].startswith("hvdkit check: error:")


SPEECH = "import torch\nfrom speechkit.dist import init_distributed, wrap_optimizer\n\ninit_distributed()\n" \
    "opt = wrap_optimizer(torch.optim.SGD(torch.nn.Linear(4, 2).parameters(), lr=0.1))\n"


def test_horovod_only_in_a_missing_module_of_its_own_is_cannot_tell(tmp_path):
    """A script that imports Horovod only through its own package, which is not there (a file copied out of its
    repository): its Horovod work may be in that package, so "not a Horovod script" would be a guess."""
    (tmp_path / "train.py").write_text(SPEECH)
    r = _cli(str(tmp_path / "train.py"))
    assert r.returncode == 2 and r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot tell" in lines[0] and "module speechkit is not in the project" in lines[0]
    assert "check it inside its project" in lines[0]


def test_own_package_present_without_horovod_is_not_a_horovod_script(tmp_path):
    (tmp_path / "train.py").write_text(SPEECH)
    (tmp_path / "speechkit").mkdir()
    (tmp_path / "speechkit" / "__init__.py").write_text("")
    (tmp_path / "speechkit" / "dist.py").write_text(
        "def init_distributed():\n    pass\n\n\ndef wrap_optimizer(opt):\n    return opt\n")
    r = _cli(str(tmp_path / "train.py"))
    assert r.returncode == 2 and "not a Horovod script" in r.stderr


def test_bad_options_exit_2():
    r = _cli(os.path.join(MUTANT_DIR, "base_torch.py"), "--run", "-n", "1")
    assert r.returncode == 2 and "at least 2 ranks" in r.stderr


@pytest.mark.parametrize("repeat,verdict", [("", OK), (".repeat()", WRONG)])
def test_steps_counted_before_sharding_matter_only_when_they_extend_the_epoch(tmp_path, repeat, verdict):
    src = f"""
        import tensorflow as tf, horovod.tensorflow as hvd
        hvd.init()
        (x, y), _ = tf.keras.datasets.mnist.load_data()
        nstep = len(x) // 128
        dataset = tf.data.Dataset.from_tensor_slices((x, y)).shard(hvd.size(), hvd.rank()){repeat}.batch(128)
        for batch, (images, labels) in enumerate(dataset.take(nstep)):
            pass
    """
    findings, _, _ = analyze(_write(tmp_path, src))
    assert findings[3].verdict == verdict, findings[3].evidence


def test_a_benchmark_single_random_batch_has_nothing_to_shard(tmp_path):
    src = """
        import tensorflow as tf, horovod.tensorflow.keras as hvd
        hvd.init()
        data = tf.random.uniform([args.batch_size, 224, 224, 3])
        dataset = tf.data.Dataset.from_tensor_slices((data, data)).repeat().batch(args.batch_size)
        model.fit(dataset, steps_per_epoch=10)
    """
    findings, _, _ = analyze(_write(tmp_path, src))
    assert findings[3].verdict == UNKNOWN and "synthetic" in findings[3].evidence


@pytest.mark.parametrize("report,verdict", [
    # a mean of per-rank means: exact when the shards are equal, as DistributedSampler makes them
    ("loss_sum /= count\n{i}print(hvd.allreduce(torch.tensor(loss_sum)).item())", OK),
    ("t = hvd.allreduce(torch.tensor([loss_sum, count]), op=hvd.Sum)\n{i}print((t[0] / t[1]).item())", OK),
    ("print(hvd.allreduce(torch.tensor(loss_sum), op=hvd.Sum).item())", WRONG),        # a sum reported as the mean
    ("if hvd.rank() == 0:\n{i}    print(loss_sum / count)", MISSING),                 # rank 0's own
])
def test_metric_reports(tmp_path, report, verdict):
    src = f"""
        import torch, horovod.torch as hvd
        from torch.utils.data.distributed import DistributedSampler
        hvd.init()
        sampler = DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.rank())
        loader = torch.utils.data.DataLoader(ds, sampler=sampler)
        for epoch in range(3):
            loss_sum, count = 0.0, 0
            for x, y in loader:
                loss_sum, count = loss_sum + loss_fn(model(x), y).item() * len(y), count + len(y)
            {report.format(i=" " * 12)}
    """
    findings, _, _ = analyze(_write(tmp_path, src))
    assert findings[8].verdict == verdict, findings[8].evidence


def test_hvdkit_warmup_alone_does_not_scale_the_lr(tmp_path):
    # hk.warmup ramps up to the optimizer's own LR in both frameworks: without hk.scale_lr step 4 is missing.
    src = """
        import keras, hvdkit.tensorflow as hk
        hk.init()
        opt = keras.optimizers.Adam({lr})
        hk.warmup(opt, steps=100)
    """
    findings, _, _ = analyze(_write(tmp_path, src.format(lr="0.001")))
    assert findings[4].verdict == MISSING
    findings, _, _ = analyze(_write(tmp_path, src.format(lr="hk.scale_lr(0.001)")))
    assert findings[4].verdict == OK
