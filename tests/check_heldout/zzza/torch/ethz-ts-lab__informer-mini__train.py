import argparse
import random

import numpy as np
import torch
import horovod.torch as hvd

from exp.exp_main import Exp_Main

parser = argparse.ArgumentParser(description="Informer-lite long sequence forecasting (Horovod)")
parser.add_argument("--data_path", type=str, default="", help="ETTh1.csv; synthetic when empty")
parser.add_argument("--enc_in", type=int, default=7)
parser.add_argument("--seq_len", type=int, default=96)
parser.add_argument("--pred_len", type=int, default=24)
parser.add_argument("--d_model", type=int, default=64)
parser.add_argument("--n_heads", type=int, default=4)
parser.add_argument("--e_layers", type=int, default=2)
parser.add_argument("--dropout", type=float, default=0.05)
parser.add_argument("--batch_size", type=int, default=32)
parser.add_argument("--learning_rate", type=float, default=1e-4)
parser.add_argument("--train_epochs", type=int, default=6)
parser.add_argument("--patience", type=int, default=3)
parser.add_argument("--num_workers", type=int, default=0)
parser.add_argument("--checkpoints", type=str, default="./checkpoints/")
parser.add_argument("--itr", type=int, default=1, help="experiment repeats")
parser.add_argument("--use_gpu", type=int, default=1)
parser.add_argument("--gpu", type=int, default=0)
args = parser.parse_args()

hvd.init()
fix_seed = 2021
random.seed(fix_seed)
torch.manual_seed(fix_seed)
np.random.seed(fix_seed)

args.use_gpu = bool(args.use_gpu and torch.cuda.is_available())
if args.use_gpu:
    torch.cuda.set_device(args.gpu)
    device = torch.device(f"cuda:{args.gpu}")
else:
    device = torch.device("cpu")

if hvd.rank() == 0:
    print("Args in experiment:", vars(args))

for ii in range(args.itr):
    setting = f"informerlite_sl{args.seq_len}_pl{args.pred_len}_dm{args.d_model}_{ii}"
    exp = Exp_Main(args, device)
    if hvd.rank() == 0:
        print(f">>>>>>> start training : {setting} >>>>>>>>>>>>>>>>>>>>>>>>>>")
    exp.train(setting)
    exp.test(setting)
    if torch.cuda.is_available():
        torch.cuda.empty_cache()
