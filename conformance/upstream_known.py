"""Upstream tests excused from conformance.upstream's target: they fail only because the test's own code uses
an API the framework removed, not because of Horovod.

Each entry was decided by reading the failure's frames and the test's source, and excuses a failure only
while it still looks the same: every failure of the test (on every rank, every subtest) must match the
entry's exception type and message pattern, and its innermost frame in the test file must be on one of
the entry's lines (the test's own call into the removed API). A test that starts failing elsewhere, or
for another reason, counts as failed again.
"""
import re

# (file, test name as in the pytest node id after "::", exception type, message regex,
#  test-file lines where the test calls the removed API, reason)
_NO_REF = r"^'Variable' object has no attribute 'ref'$"
_MUON = ("the test builds every torch.optim.Optimizer subclass with the same 1-D and 2-D parameters; torch 2.13's "
         "Muon accepts only 2-D parameters and raises in its constructor, in the test's own code, before Horovod")
_REF = ("the test's own code calls var.ref() (a tf.Variable method) on Keras 3 variables, which do not have it")
_LR = "the test passes Keras 2's `lr=` to a Keras 3 optimizer, which rejects it in its constructor"
_SUBCLASS = ("the test's own Optimizer subclass calls the Keras 3 base constructor without the learning_rate "
             "it requires (Keras 2's OptimizerV2 had a default)")
KNOWN = [
    ("test_torch.py", "TorchTests::test_broadcast_state", "ValueError", r"^Muon only supports 2D", {2320}, _MUON),
    ("test_torch.py", "TorchTests::test_broadcast_state_options", "ValueError", r"^Muon only supports 2D", {2472},
     _MUON),
    ("test_torch.py", "TorchTests::test_force_allreduce", "ValueError", r"^Muon only supports 2D", {2661}, _MUON),
    ("test_tensorflow.py", "TensorFlowTests::test_horovod_syncbn_cpu", "ValueError",
     r"^Unrecognized keyword arguments passed to BatchNormalization: \{'fused': False\}$", {4159},
     "the test builds its reference tf.keras.layers.BatchNormalization(fused=False); Keras 3 removed `fused`"),
    ("test_tensorflow.py", "TensorFlowTests::test_partial_distributed_gradient_tape", "AttributeError", _NO_REF,
     {5493, 5494}, _REF + ", before it calls Horovod"),
    ("test_tensorflow2_keras.py", "Tf2KerasTests::test_broadcast_global_variables_callback_with_local_vars",
     "AttributeError", _NO_REF, {631, 633}, _REF + ", after model.fit with Horovod's callback has returned"),
    ("test_tensorflow2_keras.py", "Tf2KerasTests::test_partial_distributed_optimizer", "AttributeError", _NO_REF,
     set(range(589, 600)), _REF + ", after Horovod's _compute_gradients has returned"),
    ("test_tensorflow2_keras.py", "Tf2KerasTests::test_gradient_aggregation_0", "TypeError",
     r"missing 1 required positional argument: 'learning_rate'", {313}, _SUBCLASS),
    ("test_tensorflow2_keras.py", "Tf2KerasTests::test_gradient_aggregation_1", "TypeError",
     r"missing 1 required positional argument: 'learning_rate'", {313}, _SUBCLASS),
    ("test_tensorflow2_keras.py", "Tf2KerasTests::test_gradient_aggregation_with_local_vars_0", "TypeError",
     r"missing 1 required positional argument: 'learning_rate'", {424}, _SUBCLASS),
    ("test_tensorflow2_keras.py", "Tf2KerasTests::test_gradient_aggregation_with_local_vars_1", "TypeError",
     r"missing 1 required positional argument: 'learning_rate'", {424}, _SUBCLASS),
    ("test_tensorflow2_keras.py", "Tf2KerasTests::test_sparse_as_dense", "ValueError",
     r"^Argument\(s\) not recognized: \{'lr'", {141}, _LR),
    ("test_tensorflow2_keras.py", "Tf2KerasTests::test_sparse_as_dense_with_grad_aggregation", "ValueError",
     r"^Argument\(s\) not recognized: \{'lr'", {178}, _LR),
    ("test_tensorflow2_keras.py", "Tf2KerasTests::test_legacy_optimizer", "ImportError",
     r"^`keras.optimizers.legacy` is not supported in Keras 3", {159},
     "the test uses keras.optimizers.legacy (Keras 2 only; Keras 3 raises on access)"),
    ("test_tensorflow2_keras.py", "Tf2KerasTests::test_train_model_lr_schedule", "AttributeError",
     r"has no attribute 'mean_squared_error'$", {77},
     "the test compiles with Keras 2's keras.losses.mean_squared_error (and uses ThresholdedReLU and "
     "experimental_run_tf_function=, also gone in Keras 3)"),
    ("test_keras.py", "KerasTests", "AttributeError", r"^module 'tensorflow' has no attribute 'ConfigProto'$", {52},
     "the test class's constructor builds a TensorFlow 1 tf.ConfigProto session config; TensorFlow 2 has none, "
     "so no test of the file can be collected"),
]


# Example scripts that stop in their own code on an API the framework removed, decided the same way:
# (script under examples/, exception-line regex, the script's own 'file:line' where it stops, reason).
KNOWN_EXAMPLES = [
    ("keras/keras_mnist.py", r"^AttributeError: module 'tensorflow' has no attribute 'ConfigProto'$",
     "keras/keras_mnist.py:15",
     "the script builds a TensorFlow 1 tf.ConfigProto session config (TensorFlow 2 has none)"),
    ("keras/keras_mnist_advanced.py", r"^ImportError: cannot import name 'ImageDataGenerator'",
     "keras/keras_mnist_advanced.py:8",
     "the script imports Keras 2's keras.preprocessing.image.ImageDataGenerator (removed in Keras 3; it also "
     "uses tf.ConfigProto, `lr=` and fit_generator)"),
]


def excuse_example(script, reason, frame):
    """Why `script` failing with exception line `reason` at `frame` is its own code's doing, or None."""
    for k_script, k_reason, k_frame, why in KNOWN_EXAMPLES:
        if k_script == script and frame == k_frame and re.search(k_reason, reason or ""):
            return why
    return None


def excuse(file, test, failures):
    """The reason `test` of `file` is excused, or None when some failure is not the known one."""
    name = test.split("::", 1)[-1]
    for k_file, k_test, k_type, k_message, k_lines, reason in KNOWN:
        if k_file != file or k_test != name:
            continue
        if failures and all(_matches(f, file, k_type, k_message, k_lines) for f in failures):
            return reason
    return None


def _matches(failure, file, k_type, k_message, k_lines):
    where = failure.get("test_frame") or ""
    line = where.rsplit(":", 1)[-1]
    return (failure["type"] == k_type and re.search(k_message, failure["message"]) is not None
            and where.startswith(file + ":") and line.isdigit() and int(line) in k_lines)
