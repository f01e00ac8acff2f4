"""Driver-side checks run before any Horovod worker starts."""


def check_tables(spark, cfg):
    """Fail early, on the driver, if a feature table is missing a column the workers need."""
    needed = set(cfg["categorical"]) | set(cfg["numeric"]) | {cfg["target"]}
    counts = {}
    for key in ("table", "valid_table"):
        df = spark.read.parquet(cfg[key])
        missing = needed - set(df.columns)
        if missing:
            raise SystemExit(f"{cfg[key]} lacks columns: {sorted(missing)}")
        counts[key] = df.count()
    if len(cfg["cardinalities"]) != len(cfg["categorical"]):
        raise SystemExit("conf: one cardinality per categorical column is required")
    return counts
