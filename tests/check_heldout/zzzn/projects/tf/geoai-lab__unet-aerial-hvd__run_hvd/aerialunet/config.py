import argparse
import json


def get_args(argv=None):
    p = argparse.ArgumentParser('U-Net aerial building/road segmentation (Inria / Massachusetts)')
    p.add_argument('--num-proc', type=int, default=2, help='workers started by horovod.run')
    p.add_argument('--tiles', default='/data/inria/tiles_512')
    p.add_argument('--classes', type=int, default=2)
    p.add_argument('--tile', type=int, default=512)
    p.add_argument('--crop', type=int, default=384)
    p.add_argument('--batch', type=int, default=8, help='per worker')
    p.add_argument('--epochs', type=int, default=50)
    p.add_argument('--lr', type=float, default=1e-3, help='single worker lr')
    p.add_argument('--power', type=float, default=0.9)
    p.add_argument('--window', type=int, default=512, help='sliding window for full-size eval')
    p.add_argument('--stride', type=int, default=384)
    p.add_argument('--out', default='runs/unet_inria')
    p.add_argument('--random-data', action='store_true')
    p.add_argument('--seed', type=int, default=17)
    p.add_argument('--config', default=None, help='json file overriding the flags')
    a = p.parse_args(argv)
    if a.config:
        with open(a.config) as f:
            for k, v in json.load(f).items():
                setattr(a, k.replace('-', '_'), v)
    return a
