"""The model.fit path on Keras 3: hvdkit's optimizer wrapper and callbacks keep replicas equal and
average epoch metrics over every sample of every rank (uneven validation shards)."""
import pytest

from steps import json_rows

pytestmark = pytest.mark.slow  # launches ranks


@pytest.mark.tensorflow
@pytest.mark.horovod
def test_fit_with_callbacks(shared_checks):
    rows = json_rows(shared_checks("tensorflow", 2), "FIT")
    assert len(rows) == 2
    assert rows[0]["weights"] == rows[1]["weights"], "replicas diverged under model.fit"
    # The reference, computed here from each rank's own sums (no hvdkit call): every sample of every
    # rank weighted alike, the ranks' validation shards being uneven (40 and 48 samples).
    local = [row["local"] for row in rows]
    assert sorted(r["n"] for r in local) == [40, 48]
    total = sum(r["n"] for r in local)
    exact = {"val_loss": sum(r["loss_sum"] for r in local) / total,
             "val_accuracy": sum(r["correct"] for r in local) / total}
    for row in rows:
        logs = row["logs"]
        assert logs["val_loss"] == pytest.approx(exact["val_loss"], rel=1e-5)
        assert logs["val_accuracy"] == pytest.approx(exact["val_accuracy"], rel=1e-5)
        assert logs["loss"] != pytest.approx(logs["val_loss"])  # training state is not validation's
        assert logs["lr"] == pytest.approx(0.1)  # warmup reached scale_lr(0.05) at 2 ranks
    assert rows[0]["logs"] == rows[1]["logs"]
