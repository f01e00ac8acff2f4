import argparse
import os


class MonodepthOptions:
    def __init__(self):
        self.parser = argparse.ArgumentParser(description="Monodepth options (Horovod)")
        self.parser.add_argument("--data_path", type=str, default=os.path.join("data", "kitti_npz"))
        self.parser.add_argument("--log_dir", type=str, default=os.path.join(os.path.expanduser("~"), "tmp"))
        self.parser.add_argument("--model_name", type=str, default="mono_model")
        self.parser.add_argument("--height", type=int, default=96)
        self.parser.add_argument("--width", type=int, default=320)
        self.parser.add_argument("--disparity_smoothness", type=float, default=1e-3)
        self.parser.add_argument("--min_depth", type=float, default=0.1)
        self.parser.add_argument("--max_depth", type=float, default=100.0)
        self.parser.add_argument("--batch_size", type=int, default=12, help="per GPU")
        self.parser.add_argument("--learning_rate", type=float, default=1e-4)
        self.parser.add_argument("--num_epochs", type=int, default=20)
        self.parser.add_argument("--scheduler_step_size", type=int, default=15)
        self.parser.add_argument("--num_workers", type=int, default=8)
        self.parser.add_argument("--save_frequency", type=int, default=1)

    def parse(self):
        return self.parser.parse_args()
