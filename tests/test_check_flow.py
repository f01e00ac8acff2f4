"""`hvdkit check`, static pass: data flow that a second round of held-out scripts showed misread. A random
batch of indices is no subset of the data; a short loop variable names no accumulator elsewhere in the file; an
integer division makes a count, not an LR; a module-level call binds its function's parameters; callbacks
returned by a helper reach fit; a save is judged by its path, not by what the saved object was computed from.
Each broken script is flagged on its step only; its correct twin on none. Scripts are the mutant bases with
small edits."""
import ast
import os
import sys

import pytest

from hvdkit.check import FLAGGED
from hvdkit.check.rules import step6_broadcast
from hvdkit.check.static import Facts, analyze, load

BASES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check_mutants")
sys.path.insert(0, BASES)
import make_mutants  # noqa: E402 - the bases and their edits live beside the mutant table


def _flagged(tmp_path, base, edits):
    path = tmp_path / "train.py"
    path.write_text(make_mutants.edited(base, edits))
    findings, _, _ = analyze(str(path))
    return {n: f.evidence for n, f in findings.items() if f.verdict in FLAGGED}


T_SAMPLER = "    sampler = DistributedSampler(dataset, num_replicas=hvd.size(), rank=hvd.rank())\n"
T_LOADER = "    loader = DataLoader(dataset, batch_size=16, sampler=sampler)\n"
T_LOOP = "        for x, y in loader:\n"
T_EPOCH = "        sampler.set_epoch(epoch)\n"


def _random_batches(draw):
    """The rank's own rows sliced by hand, batches drawn by `draw` (an index expression) from them."""
    return [(T_SAMPLER, "    mine = dataset.tensors[0][hvd.rank()::hvd.size()]\n"
                        "    labels = dataset.tensors[1][hvd.rank()::hvd.size()]\n"), (T_LOADER, ""), (T_EPOCH, ""),
            (T_LOOP, f"        for _ in range(4):\n            pick = {draw}\n"
                     "            x, y = mine[pick], labels[pick]\n")]


@pytest.mark.parametrize("draw,flagged", [
    ("np.random.randint(0, len(mine), 16)", []),                          # 16 random rows of this rank's own part
    ("np.random.choice(len(dataset), len(dataset) // hvd.size())", [3]),  # each rank its own random 1/size
])
def test_random_batch_indices_into_the_ranks_part_are_no_subset(tmp_path, draw, flagged):
    edits = _random_batches(draw.replace("len(dataset)", "64")) + [("import torch\n", "import numpy as np\nimport "
                                                                                   "torch\n")]
    assert list(_flagged(tmp_path, "base_torch.py", edits)) == flagged


TF_GRADS = "    grads = tape.gradient(loss, model.trainable_variables)\n"


def test_a_short_loop_variable_is_no_accumulator_elsewhere(tmp_path):
    """`for a, g in zip(accum, grads): a.assign_add(g)` holds gradients in accum, not in every `a` of the file:
    a metric summed with op=Sum through another `a` is no gradient sum."""
    with open(os.path.join(BASES, "base_tf_loop.py")) as fh:
        text = fh.read()
    assert "tape = hvd.DistributedGradientTape(tape)" in text
    metric = ("    a = 1.0\n    seen = tf.constant([a, 2.0])\n"
              "    total = hvd.allreduce(seen, op=hvd.Sum)\n    print(float(total[0] / total[1]))\n")
    path = tmp_path / "train.py"
    path.write_text(text + "\n\ndef report(hvd, tf, accum, grads):\n    for a, g in zip(accum, grads):\n"
                    "        a.assign_add(g)\n" + metric)
    findings, _, _ = analyze(str(path))
    assert findings[5].verdict not in FLAGGED, findings[5].evidence


K_OPT = "    opt = keras.optimizers.SGD(learning_rate=0.01 * hvd.size())\n"


@pytest.mark.parametrize("lr,flagged", [
    ("Peak(0.01 * hvd.size(), total=2 * (64 // (16 * hvd.size())))", []),  # the step count is divided, not the LR
    ("Peak(0.01 / hvd.size(), total=2 * (64 // (16 * hvd.size())))", [4]),
])
def test_an_integer_division_by_the_size_is_a_count_not_the_lr(tmp_path, lr, flagged):
    schedule = ("class Peak(keras.optimizers.schedules.LearningRateSchedule):\n"
                "    def __init__(self, peak, total):\n        self.peak, self.total = peak, total\n\n"
                "    def __call__(self, step):\n        return self.peak * (1.0 - step / self.total)\n\n\n")
    edits = [(K_OPT, f"    opt = keras.optimizers.SGD(learning_rate={lr})\n"),
             ("def main():\n", schedule + "def main():\n")]
    assert list(_flagged(tmp_path, "base_keras_fit.py", edits)) == flagged


@pytest.mark.parametrize("lr,flagged", [("0.01 * hvd.size()", []), ("0.01", [4])])
def test_a_parameter_bound_at_the_module_level_is_followed(tmp_path, lr, flagged):
    """main(CONFIG) at the module's level binds cfg: SGD(**cfg["sgd"]) reads CONFIG's entry (unread, the LR
    could not be told at all)."""
    edits = [("def main():\n", f'hvd.init()\nCONFIG = {{"sgd": {{"learning_rate": {lr}}}}}\n\n\ndef main(cfg):\n'),
             ("    hvd.init()\n", ""), (K_OPT, '    opt = keras.optimizers.SGD(**cfg["sgd"])\n'),
             ("    main()\n", "    main(CONFIG)\n")]
    got = _flagged(tmp_path, "base_keras_fit.py", edits)
    assert list(got) == flagged, got


K_CALLBACKS = ("    callbacks = [\n        hvd.callbacks.BroadcastGlobalVariablesCallback(0),\n"
               "        hvd.callbacks.MetricAverageCallback(),\n    ]\n")


@pytest.mark.parametrize("fit_callbacks,flagged", [("make_callbacks()", []), ("[]", [6, 8])])
def test_callbacks_returned_by_a_helper_reach_fit(tmp_path, fit_callbacks, flagged):
    helper = ("def make_callbacks():\n    cbs = [hvd.callbacks.BroadcastGlobalVariablesCallback(0), "
              "hvd.callbacks.MetricAverageCallback()]\n    return cbs\n\n\n")
    edits = [("def main():\n", helper + "def main():\n"), (K_CALLBACKS, "    callbacks = []\n"),
             ("callbacks=callbacks,", f"callbacks={fit_callbacks} + callbacks,")]
    assert sorted(_flagged(tmp_path, "base_keras_fit.py", edits)) == flagged


T_SAVE = '            torch.save(model.state_dict(), os.path.join(args.ckpt_dir, "model.pt"))\n'


@pytest.mark.parametrize("saved,path,flagged", [('"model": model.state_dict(), "mu": mu', '"model.pt"', []),
                                                ('"model": model.state_dict(), "mu": mu', '"model.csv"', []),
                                                ('"mu": mu', '"stats.pt"', [7])])
def test_a_torch_save_is_judged_by_what_it_saves(tmp_path, saved, path, flagged):
    """A checkpoint that keeps the input's normalisation (computed from a CSV file) is still a checkpoint,
    whatever its file is called; a table written with torch.save is not (issue 39: by what is saved, not by
    the file's name)."""
    edits = [("    dataset = make_data()\n", '    dataset = make_data()\n    mu = np.loadtxt("train.csv").mean(0)\n'),
             (T_SAVE, f'            torch.save({{{saved}}}, {path})\n'),
             ("import torch\n", "import numpy as np\nimport torch\n")]
    assert list(_flagged(tmp_path, "base_torch.py", edits)) == flagged


F_TAPE = "        tape = hvd.DistributedGradientTape(tape)\n"
F_GRADS = "        grads = tape.gradient(loss, model.trainable_variables)\n"


@pytest.mark.parametrize("scale,flagged", [("/ hvd.size()", []), ("/ 2.0", [5])])
def test_gradients_summed_by_hand_are_no_metric(tmp_path, scale, flagged):
    """Gradients summed with op=Sum and divided by something else than the size are step 5's fault only: the
    gradient allreduce (whatever its names) is no metric that step 8 should call summed."""
    edits = [(F_TAPE, ""), (F_GRADS, F_GRADS + "        summed = [hvd.allreduce(a, op=hvd.Sum) for a in grads]\n"
                                                f"        grads = [s {scale} for s in summed]\n")]
    assert list(_flagged(tmp_path, "base_tf_loop.py", edits)) == flagged


T_TOTALS = '            print(f"epoch {epoch}: loss {totals[0] / totals[1]:.4f}")\n'


@pytest.mark.parametrize("report,flagged", [
    ('            print(f"epoch {epoch}: loss {ratio(totals):.4f}")\n', []),  # computed from the summed counts
    ('            print(f"epoch {epoch}: loss sum {totals[0]:.4f}")\n', [8]),  # the sum reported as the loss
])
def test_a_sum_handed_to_the_scripts_own_function_is_computed_on(tmp_path, report, flagged):
    edits = [("def main():\n", "def ratio(t):\n    return float(t[0] / t[1])\n\n\ndef main():\n"),
             (T_TOTALS, report), ("        totals = hvd.allreduce(", "        sums = hvd.allreduce("),
             ("op=hvd.Sum)\n", "op=hvd.Sum)\n        totals = sums\n")]
    assert list(_flagged(tmp_path, "base_torch.py", edits)) == flagged


@pytest.mark.parametrize("acc,flagged", [("hvd.allreduce(torch.tensor(correct / 16)).item()", []),
                                         ("correct / 16", [8])])
def test_each_evaluation_value_of_a_report_is_judged(tmp_path, acc, flagged):
    """`print(f"loss={averaged} test_acc={acc}")` with acc from this rank's part of the test set: the averaged
    loss beside it does not make the test accuracy the job's."""
    evaluation = ("        test_sampler = DistributedSampler(dataset, num_replicas=hvd.size(), rank=hvd.rank(),"
                  " shuffle=False)\n        correct = 0\n"
                  "        for x, y in DataLoader(dataset, batch_size=16, sampler=test_sampler):\n"
                  "            correct += int((model(x).argmax(1) == y).sum())\n"
                  f"        test_acc = {acc}\n")
    edits = [("        if hvd.rank() == 0:\n", evaluation + "        if hvd.rank() == 0:\n"),
             (T_TOTALS, '            print(f"epoch {epoch}: loss={totals[0] / totals[1]:.4f} test_acc={test_acc}")\n')]
    assert list(_flagged(tmp_path, "base_torch.py", edits)) == flagged


@pytest.mark.parametrize("values,flagged", [("[0.01 * hvd.size(), 0.001 * hvd.size()]", []), ("[0.01, 0.001]", [4])])
def test_a_piecewise_schedules_values_are_the_lr(tmp_path, values, flagged):
    edits = [(K_OPT, "    schedule = keras.optimizers.schedules.PiecewiseConstantDecay(boundaries=[100], "
                     f"values={values})\n    opt = keras.optimizers.SGD(learning_rate=schedule)\n")]
    assert list(_flagged(tmp_path, "base_keras_fit.py", edits)) == flagged


def test_fit_told_the_rank_for_its_log_reads_no_part(tmp_path):
    """fit(verbose=2 if rank 0 else 0, callbacks=[...hvd.size()...]) is no loader given the rank and the size:
    the shard thrown away beside it is still thrown away."""
    warm = "        hvd.callbacks.LearningRateWarmupCallback(initial_lr=0.01 * hvd.size(), warmup_epochs=1),\n"
    average, model = "        hvd.callbacks.MetricAverageCallback(),\n", "    model = keras.Sequential("
    edits = [(".shard(hvd.size(), hvd.rank()).shuffle(32)", ".shuffle(32)"), (average, average + warm),
             (model, "    dataset.shard(hvd.size(), hvd.rank())\n" + model)]
    assert list(_flagged(tmp_path, "base_keras_fit.py", edits)) == [3]


T_MODEL = "    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2))\n"
T_OPT = "    optimizer = torch.optim.SGD(model.parameters(), lr=0.01 * hvd.size(), momentum=0.9)\n"
T_WRAP = "    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())\n"
T_BCAST = "    hvd.broadcast_parameters(model.state_dict(), root_rank=0)\n"


@pytest.mark.parametrize("broadcasts,flagged", [(["model", "head"], []), (["model"], [6])])
def test_modules_trained_through_a_loop_are_each_covered(tmp_path, broadcasts, flagged):
    """params = chain(*(m.parameters() for m in modules.values())) trains every module of the dict: one that
    no broadcast covers starts from its own weights on each rank."""
    edits = [(T_MODEL, T_MODEL + '    head = torch.nn.Linear(2, 2)\n    modules = {"body": model, "head": head}\n'),
             (T_OPT, "    params = itertools.chain(*(m.parameters() for m in modules.values()))\n"
                     "    optimizer = torch.optim.SGD(params, lr=0.01 * hvd.size(), momentum=0.9)\n"),
             (T_WRAP, '    named = [(f"{k}.{n}", p) for k, m in modules.items() for n, p in m.named_parameters()]\n'
                      "    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=named)\n"),
             (T_BCAST, "".join(f"    hvd.broadcast_parameters({m}.state_dict(), root_rank=0)\n" for m in broadcasts)),
             ("model(x), y)", "head(model(x)), y)"), ("import os\n", "import itertools\nimport os\n")]
    assert list(_flagged(tmp_path, "base_torch.py", edits)) == flagged


F_MODEL = ("    model = tf.keras.Sequential([tf.keras.Input((8,)), tf.keras.layers.Dense(16, activation=\"relu\"),\n"
           "                                 tf.keras.layers.Dense(2)])\n")


@pytest.mark.parametrize("build,before", [("    net.build((None, 8))\n", False), ("", True)])
def test_a_model_handed_to_a_class_is_followed_to_what_made_it(tmp_path, build, before):
    """Holder(net) keeps `self.model = model`; broadcasting self.model.variables in its __init__ sends nothing
    when net is a subclassed Keras model that nothing built yet (its first call, warm(), comes after)."""
    classes = ("class Net(tf.keras.Model):\n    def __init__(self):\n        super().__init__()\n"
               "        self.hidden = tf.keras.layers.Dense(16, activation=\"relu\")\n"
               "        self.out = tf.keras.layers.Dense(2)\n\n    def call(self, x):\n"
               "        return self.out(self.hidden(x))\n\n\nclass Holder:\n    def __init__(self, model):\n"
               "        self.model = model\n        hvd.broadcast_variables(self.model.variables, root_rank=0)\n\n"
               "    def warm(self, x):\n        return self.model(x)\n\n\n")
    first = "            hvd.broadcast_variables(model.variables, root_rank=0)\n"
    edits = [("def main():\n", classes + "def main():\n"), (first, ""),
             (F_MODEL, f"    net = Net()\n{build}    holder = Holder(net)\n    holder.warm(x[:1])\n    model = net\n")]
    path = tmp_path / "train.py"
    path.write_text(make_mutants.edited("base_tf_loop.py", edits))
    f = Facts(load(str(path)))
    [cast] = [e for e in f.s.events if f.api(e, "broadcast_variables") and "self.model" in ast.unparse(e.node)]
    assert (step6_broadcast._before_variables(f, cast) is not None) == before


T_SUMS = "        totals = hvd.allreduce(torch.tensor([loss_sum, count]), op=hvd.Sum)\n"


def test_an_allreduce_taking_a_minimum_is_no_metric_average(tmp_path):
    """The ranks agreeing on a step count with op=hvd.Min average no metric: rank 0's own loss printed as the
    job's is still missing its averaging."""
    edits = [(T_SUMS, "        steps = hvd.allreduce(torch.tensor(count), op=hvd.Min)\n"),
             (T_TOTALS, '            print(f"epoch {epoch} ({int(steps)} steps): loss {loss_sum / count:.4f}")\n')]
    assert list(_flagged(tmp_path, "base_torch.py", edits)) == [8]


def test_instances_unpacked_from_a_tuple_run_their_class_methods(tmp_path):
    """loss_m, seen_m = Meter(), Meter(): loss_m.value() is Meter.value, which averages over the ranks."""
    meter = ("class Meter:\n    def __init__(self):\n        self.total, self.n = 0.0, 0\n\n"
             "    def value(self):\n        t = hvd.allreduce(torch.tensor([self.total, self.n]), op=hvd.Sum)\n"
             "        return float(t[0] / t[1])\n\n\n")
    edits = [("def main():\n", meter + "def main():\n"),
             ("        loss_sum, count = 0.0, 0\n", "        loss_m, seen_m = Meter(), Meter()\n"),
             ("            loss_sum, count = loss_sum + loss.item() * len(y), count + len(y)\n",
              "            loss_m.total, loss_m.n = loss_m.total + loss.item() * len(y), loss_m.n + len(y)\n"),
             (T_SUMS, "        loss = loss_m.value()  # on every rank: it allreduces\n"),
             (T_TOTALS, '            print(f"epoch {epoch}: loss {loss:.4f}")\n')]
    assert list(_flagged(tmp_path, "base_torch.py", edits)) == []
