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
