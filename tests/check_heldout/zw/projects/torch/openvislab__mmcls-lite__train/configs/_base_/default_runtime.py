checkpoint_config = dict(interval=1)
log_config = dict(interval=50)
evaluation = dict(interval=1)
lr_config = dict(warmup_iters=500, min_lr=0.0)
total_epochs = 100
