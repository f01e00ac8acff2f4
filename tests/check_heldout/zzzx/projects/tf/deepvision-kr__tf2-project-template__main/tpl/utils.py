import argparse
import json
import os
from types import SimpleNamespace


def get_args():
    argparser = argparse.ArgumentParser(description=__doc__)
    argparser.add_argument('-c', '--config', metavar='C', default='configs/convnet.json',
                           help='The Configuration file')
    return argparser.parse_args()


def get_config_from_json(json_file):
    with open(json_file, 'r') as config_file:
        config_dict = json.load(config_file)
    return SimpleNamespace(**config_dict), config_dict


def process_config(json_file):
    config, _ = get_config_from_json(json_file)
    config.summary_dir = os.path.join("experiments", config.exp_name, "summary/")
    config.checkpoint_dir = os.path.join("experiments", config.exp_name, "checkpoint/")
    return config


def create_dirs(dirs):
    for dir_ in dirs:
        os.makedirs(dir_, exist_ok=True)
