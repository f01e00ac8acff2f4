# coding=utf-8
# MLM pretraining of a small BERT with horovod, apex-free amp and local grad accumulation.
import torch
import horovod.torch as hvd

from bertacc.args import parse_args
from bertacc.utils import set_seed, setup_device, is_main_process, save_checkpoint
from bertacc.data import shard_loader
from bertacc.optim import build_optimizer, linear_warmup
from bertacc.trainer import MiniBert, PretrainLoop


def main():
    args = parse_args()
    hvd.init()
    set_seed(args.seed + hvd.rank())
    device = setup_device()

    loader = shard_loader(args, hvd.rank(), hvd.size())
    model = MiniBert(args.vocab, args.hidden, args.layers, args.seq_len).to(device)

    optimizer = build_optimizer(args, model)
    compression = hvd.Compression.fp16 if args.allreduce_post_accumulation_fp16 else hvd.Compression.none
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         compression=compression,
                                         backward_passes_per_step=args.gradient_accumulation_steps)
    # make sure every worker starts from the same optimizer state
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    scheduler = linear_warmup(optimizer, args)
    scaler = torch.cuda.amp.GradScaler(enabled=args.fp16)

    if is_main_process():
        print("world %d, global batch %d" % (hvd.size(), hvd.size() * args.train_batch_size
                                             * args.gradient_accumulation_steps))
    loop = PretrainLoop(args, model, optimizer, scheduler, scaler, device)
    steps = loop.run(loader, lambda s: save_checkpoint(args, model, optimizer, scaler, s))
    save_checkpoint(args, model, optimizer, scaler, steps)


if __name__ == "__main__":
    main()
