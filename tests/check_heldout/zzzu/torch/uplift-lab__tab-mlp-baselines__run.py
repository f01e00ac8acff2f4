"""Launch the baselines from one python process:

    python run.py --csv data/california.csv --target MedHouseVal --model resnet -np 4
"""
import horovod

from tabmlp.cli import build_parser
from tabmlp.worker import train_fn


def main(argv=None):
    args = build_parser().parse_args(argv)
    opts = vars(args)
    results = horovod.run(train_fn, args=(opts,), num_proc=args.num_proc, hosts=args.hosts,
                          use_gloo=True)
    # one return value per process, rank order
    print(f"{args.model}: best valid {'RMSE' if args.task == 'regression' else 'logloss'} = {results[0]:.4f}")


if __name__ == "__main__":
    main()
