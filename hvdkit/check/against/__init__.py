"""`hvdkit check HVD.py --against SEQ.py`: does the Horovod script train what its sequential script trains?

run.py launches HVD.py on N ranks with record.py's hooks (each rank keeps, step by step, the batches it drew,
its learning rate, its loss and a digest of every trained tensor; rank 0 keeps the tensors themselves), then
SEQ.py in one process with replay.py's (at every step the union of the ranks' batches in place of its own,
rank 0's weights before the step, the Horovod run's LR), which compares the weights after each step
(compare.py, within tolerance.py's bound). explain.py turns what both runs saw into the report's `against`
entry, naming the step that explains a difference; samples.py judges the ranks' batches (step 3).
torch_hooks.py and tf_hooks.py are the framework side of both runs; store.py their files. Nothing here
imports a framework at import time.
"""
