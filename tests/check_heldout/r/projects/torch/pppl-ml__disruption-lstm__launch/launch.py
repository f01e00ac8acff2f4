"""Start a disruption-predictor training job with horovod.run (no horovodrun/mpirun wrapper needed).

    python launch.py --shots /p/fusion/d3d_shots --np 8 --hosts node01:4,node02:4
"""
import argparse

import horovod

from disrupt.runner import TrainConfig, train


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--shots", required=True, help="folder of shot_<id>.npz signal files")
    p.add_argument("--np", type=int, default=4)
    p.add_argument("--hosts", default=None, help="host:slots,... (default: localhost)")
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--out", default="disruption_lstm.pt")
    a = p.parse_args()

    cfg = TrainConfig(shot_dir=a.shots, epochs=a.epochs, out=a.out)
    results = horovod.run(train, args=(cfg,), np=a.np, hosts=a.hosts, use_gloo=True)
    print("final validation loss per rank:", results)


if __name__ == "__main__":
    main()
