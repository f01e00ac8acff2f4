__all__ = ["flags", "dataio", "model", "trainer", "lr_sched"]
