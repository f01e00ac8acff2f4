import os
import time

import torch
import horovod.torch as hvd

from rwh.config import get_args
from rwh.models import get_model
from rwh.schedules import GradualWarmup
from rwh.data import build_loaders
from rwh import engine

args = get_args()

hvd.init()
torch.manual_seed(args.seed)
cuda = torch.cuda.is_available()
if cuda:
    torch.cuda.set_device(hvd.local_rank())
    torch.cuda.manual_seed(args.seed)
device = "cuda" if cuda else "cpu"

# horovod: limit # of CPU threads to be used per worker.
torch.set_num_threads(4)

train_loader, val_loader, train_sampler, val_sampler = build_loaders(args, hvd)

model = get_model(args.arch).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=args.base_lr * hvd.size(),
                            momentum=0.9, weight_decay=args.wd, nesterov=True)

resume_from_epoch = 0
for try_epoch in range(args.epochs, 0, -1):
    if os.path.exists(args.checkpoint_format.format(epoch=try_epoch)):
        resume_from_epoch = try_epoch
        break
resume_from_epoch = hvd.broadcast_object(resume_from_epoch, root_rank=0, name="resume_from_epoch")

if resume_from_epoch > 0 and hvd.rank() == 0:
    ckpt = torch.load(args.checkpoint_format.format(epoch=resume_from_epoch), map_location="cpu")
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])

hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)

optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                     op=hvd.Average)
scheduler = GradualWarmup(optimizer, args.base_lr, hvd.size(), args.warmup_epochs, len(train_loader))

for epoch in range(resume_from_epoch, args.epochs):
    train_sampler.set_epoch(epoch)
    t = time.time()
    tr_loss, tr_acc = engine.train_one_epoch(model, train_loader, optimizer, scheduler, epoch, hvd,
                                             args.log_every, device)
    va_loss, va_acc = engine.validate(model, val_loader, hvd, device)
    if hvd.rank() == 0:
        print("[%d] %.1fs train %.4f/%.4f val %.4f/%.4f" % (epoch, time.time() - t, tr_loss, tr_acc, va_loss, va_acc))

    # save every epoch so preempted jobs can pick up again
    state = {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch + 1}
    torch.save(state, args.checkpoint_format.format(epoch=epoch + 1))
