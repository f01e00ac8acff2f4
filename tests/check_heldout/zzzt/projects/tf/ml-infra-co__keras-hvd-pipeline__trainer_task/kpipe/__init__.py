"""kpipe: keras training step for the ml-infra pipeline (horovod workers)."""
