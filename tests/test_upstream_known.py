"""The excuse matcher of the upstream runner (conformance/upstream_known.py): an entry excuses only the
failure it was written for; a failure of another type, message, file or line, on any rank, is not excused.
No upstream run: failures as conformance.upstream records them, made up here from a real entry."""
import pytest

from conformance import upstream_known

FILE, TEST = "test_tensorflow2_keras.py", "test_tensorflow2_keras.py::Tf2KerasTests::test_sparse_as_dense"
KNOWN = {"ranks": [0, 1], "subtest": None, "when": "call", "type": "ValueError",
         "message": "Argument(s) not recognized: {'lr': 0.1}", "frame": "optimizer.py:99",
         "test_frame": "test_tensorflow2_keras.py:141", "horovod_frame": None}


def test_the_failure_an_entry_was_written_for_is_excused():
    assert "`lr=`" in upstream_known.excuse(FILE, TEST, [KNOWN, dict(KNOWN, ranks=[1])])


WRONG = [
    ("another exception type", FILE, TEST, [dict(KNOWN, type="TypeError")]),
    ("another message", FILE, TEST, [dict(KNOWN, message="Argument(s) not recognized: {'decay': 0.1}")]),
    ("the message only contains the pattern later", FILE, TEST, [dict(KNOWN, message="x: " + KNOWN["message"])]),
    ("fails on another line of the test", FILE, TEST, [dict(KNOWN, test_frame="test_tensorflow2_keras.py:142")]),
    ("fails in another file", FILE, TEST, [dict(KNOWN, test_frame="test_tensorflow.py:141")]),
    ("no frame in the test file", FILE, TEST, [dict(KNOWN, test_frame=None)]),
    ("one rank fails for another reason", FILE, TEST, [KNOWN, dict(KNOWN, ranks=[1], type="RuntimeError")]),
    ("no failure recorded", FILE, TEST, []),
    ("same test name in another file", "test_tensorflow.py", "test_tensorflow.py::Tf2KerasTests::test_sparse_as_dense",
     [dict(KNOWN, test_frame="test_tensorflow.py:141")]),
    ("another test of the file", FILE, FILE + "::Tf2KerasTests::test_sparse_as_dense_fp16", [KNOWN]),
]


@pytest.mark.parametrize("why,file,test,failures", WRONG, ids=[w[0] for w in WRONG])
def test_a_wrong_excuse_does_not_match(why, file, test, failures):
    assert upstream_known.excuse(file, test, failures) is None, why


def test_example_excuse_needs_script_reason_and_frame():
    script, frame = "keras/keras_mnist.py", "keras/keras_mnist.py:15"
    reason = "AttributeError: module 'tensorflow' has no attribute 'ConfigProto'"
    assert "ConfigProto" in upstream_known.excuse_example(script, reason, frame)
    assert upstream_known.excuse_example(script, reason, "keras/keras_mnist.py:16") is None
    assert upstream_known.excuse_example(script, "AttributeError: module 'tensorflow' has no attribute 'Session'",
                                         frame) is None
    assert upstream_known.excuse_example("keras/keras_mnist2.py", reason, frame) is None
    assert upstream_known.excuse_example(script, None, frame) is None
