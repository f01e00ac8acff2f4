"""Framework-free half of restore: matching a loaded payload to the objects the caller passed."""
from hvdkit.common.checkpoint import CheckpointError


def apply(payload, objects, path, load):
    """Load payload[name] into each object with `load(obj, state)`; one-line errors for mismatches."""
    missing = [name for name in objects if name not in payload["objects"]]
    if missing:
        raise CheckpointError(f"checkpoint {path} has no {', '.join(missing)} (it holds "
                              f"{', '.join(sorted(payload['objects']))}); save them with the same names")
    for name, obj in objects.items():
        try:
            load(obj, payload["objects"][name])
        except (RuntimeError, ValueError, KeyError, TypeError) as exc:
            detail = "; ".join(line.strip() for line in str(exc).splitlines() if line.strip())[:300]
            raise CheckpointError(f"checkpoint {path} does not fit {name!r} (saved from a different model?): "
                                  f"{detail}. Use another checkpoint directory or the matching model") from None
    return payload["epoch"] + 1


class CheckpointerBase:
    """Step 7's flow, shared by both frameworks: only the root writes; restore reads on the root and
    broadcasts one object, so every rank resumes from exactly what the root read.

    Subclasses set `hvd` (the framework's Horovod module) and define encode(payload) -> bytes,
    decode(bytes) -> payload (running no code: UnsafeCheckpointError for a file that would need pickle),
    dump(obj) -> saved, load_into(obj, saved), value(saved) -> plain value.
    """

    def __init__(self, directory, keep=3, root_rank=0):
        from hvdkit.common.checkpoint import CheckpointFiles
        self.files = CheckpointFiles(directory, keep)
        self.root_rank = root_rank
        self.values = {}

    def save(self, epoch, **objects):
        """Every rank calls it; the root writes and returns the path, the others return None."""
        if self.hvd.rank() != self.root_rank:
            return None
        payload = {"epoch": int(epoch), "objects": {name: self.dump(obj) for name, obj in objects.items()}}
        return self.files.write(int(epoch), self.encode(payload))

    def prepare(self, objects):
        """Hook: make objects ready to receive state (TF builds optimizers)."""

    def restore(self, **objects):
        """-> the epoch to start from: the saved epoch + 1, or 0 when there is no checkpoint."""
        self.prepare(objects)
        payload, path, refused = None, None, None
        if self.hvd.rank() == self.root_rank:
            try:
                payload, path = self.files.latest(self.decode)
            except CheckpointError as exc:  # a file only pickle could read: every rank stops, none waits
                refused = str(exc)
        payload, path, refused = self.hvd.broadcast_object((payload, path, refused), root_rank=self.root_rank,
                                                           name="hvdkit.restore")
        if refused:
            raise CheckpointError(refused)
        if payload is None:
            return 0
        self.values = {k: self.value(v) for k, v in payload["objects"].items() if k not in objects}
        return apply(payload, objects, path, self.load_into)
