"""Static rules, one module per step. Each module's `judge(facts)` returns that step's Finding; a new
rule goes in its step's module (and its vocabulary in names.py)."""
from hvdkit.check.rules import (notes, step1_init, step2_pin, step3_shard, step4_lr, step5_optimizer, step6_broadcast,
                                step7_checkpoint, step8_metrics)

BY_STEP = {1: step1_init.judge, 2: step2_pin.judge, 3: step3_shard.judge, 4: step4_lr.judge,
           5: step5_optimizer.judge, 6: step6_broadcast.judge, 7: step7_checkpoint.judge, 8: step8_metrics.judge}
NOTES = notes.judge
