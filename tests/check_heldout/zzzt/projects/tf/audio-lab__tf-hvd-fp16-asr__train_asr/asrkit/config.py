import argparse

PRESETS = {
    "tiny": dict(n_mels=40, hidden=128, layers=2, vocab=32),
    "base": dict(n_mels=80, hidden=320, layers=4, vocab=32),
}


def get_args(argv=None):
    p = argparse.ArgumentParser("CTC ASR, horovod, fp16")
    p.add_argument("--preset", default="base", choices=sorted(PRESETS))
    p.add_argument("--utts", type=int, default=4000, help="synthetic utterances")
    p.add_argument("--frames", type=int, default=200)
    p.add_argument("--label-len", type=int, default=30)
    p.add_argument("--batch-size", type=int, default=24)
    p.add_argument("--lr", type=float, default=5e-4)
    p.add_argument("--steps", type=int, default=20000)
    p.add_argument("--amp", action="store_true", default=True)
    p.add_argument("--no-amp", dest="amp", action="store_false")
    p.add_argument("--fp16-allreduce", action="store_true", default=True)
    p.add_argument("--log-every", type=int, default=100)
    p.add_argument("--save-every", type=int, default=2000)
    p.add_argument("--exp-dir", default="exp/ctc")
    a = p.parse_args(argv)
    for k, v in PRESETS[a.preset].items():
        setattr(a, k, v)
    return a
