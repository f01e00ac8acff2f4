import argparse


class TrainOptions:
    def __init__(self):
        self.parser = argparse.ArgumentParser(formatter_class=argparse.ArgumentDefaultsHelpFormatter)
        self.initialized = False

    def initialize(self):
        p = self.parser
        p.add_argument("--dataroot", default="./datasets/ffhq64")
        p.add_argument("--checkpoints_dir", default="./checkpoints/ldm_mini")
        p.add_argument("--fid_ref", default="./datasets/ffhq64_ref_stats.npz")
        p.add_argument("--resume", default="", help="path of a checkpoint to resume from")
        p.add_argument("--batch_size", type=int, default=32)
        p.add_argument("--epochs", type=int, default=400)
        p.add_argument("--lr", type=float, default=5e-5)
        p.add_argument("--ema_decay", type=float, default=0.9995)
        p.add_argument("--latent_ch", type=int, default=4)
        p.add_argument("--width", type=int, default=128)
        p.add_argument("--timesteps", type=int, default=1000)
        p.add_argument("--sample_steps", type=int, default=50)
        p.add_argument("--fp16", action="store_true")
        p.add_argument("--print_freq", type=int, default=50)
        p.add_argument("--eval_every", type=int, default=5)
        p.add_argument("--save_every", type=int, default=5)
        p.add_argument("--n_threads", type=int, default=4)
        self.initialized = True

    def parse(self):
        if not self.initialized:
            self.initialize()
        opt = self.parser.parse_args()
        return opt
