"""ISIC 2019 lesion classification: EfficientNet-B0, head then full fine-tuning.

    horovodrun -np 4 python run_experiment.py --config configs/isic2019.json
"""
import argparse
import json

from lesion.experiment import Experiment


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="configs/isic2019.json")
    parser.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE",
                        help="override config entries, e.g. --set lr=0.0005 head_epochs=3")
    args = parser.parse_args()
    with open(args.config) as f:
        cfg = json.load(f)
    for item in args.set:
        key, value = item.split("=", 1)
        cfg[key] = type(cfg[key])(value) if key in cfg else value
    Experiment(cfg).run()


if __name__ == "__main__":
    main()
