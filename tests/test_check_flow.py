"""`hvdkit check`, static pass: data flow that a second round of held-out scripts showed misread. A random
batch of indices is no subset of the data; a short loop variable names no accumulator elsewhere in the file; an
integer division makes a count, not an LR; a module-level call binds its function's parameters; callbacks
returned by a helper reach fit; a save is judged by its path, not by what the saved object was computed from.
Each broken script is flagged on its step only; its correct twin on none. Scripts are the mutant bases with
small edits."""
import os
import sys

import pytest

from hvdkit.check import FLAGGED
from hvdkit.check.static import analyze

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


@pytest.mark.parametrize("path,flagged", [('"model.pt"', []), ('"stats.csv"', [7])])
def test_a_torch_save_is_judged_by_its_path_not_by_its_object(tmp_path, path, flagged):
    """A checkpoint that keeps the input's normalisation (computed from a CSV file) is still a checkpoint; a
    table written with torch.save to a .csv is not."""
    edits = [("    dataset = make_data()\n", '    dataset = make_data()\n    mu = np.loadtxt("train.csv").mean(0)\n'),
             (T_SAVE, f'            torch.save({{"model": model.state_dict(), "mu": mu}}, {path})\n'),
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
