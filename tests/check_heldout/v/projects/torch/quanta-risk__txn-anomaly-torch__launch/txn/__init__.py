from txn.trainer import train_fn  # noqa: F401
