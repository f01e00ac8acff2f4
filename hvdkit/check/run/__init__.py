"""`hvdkit check --run`: launch the script under mpirun, observe every rank, judge what they did.

dynamic.py launches and judges (RunResult, Crash); bootstrap.py runs the script on one rank with the
hooks (hooks_horovod, hooks_torch, hooks_tf) reporting to an Observer (observer.py, RankRecord);
simulate_torch.py and simulate_tf.py run GPU code on the CPU and give dataset downloads synthetic
stand-ins; blame.py says which step's code crashed. Nothing here imports a framework at import time.
"""
