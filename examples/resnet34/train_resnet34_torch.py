"""ResNet34 training throughput with PyTorch in one process: the course's starting point.

    python examples/resnet34/train_resnet34_torch.py --image-size 64 --num-steps 5
    python examples/resnet34/train_resnet34.py --framework torch       # the same

train_hvd_torch.py is this file converted to Horovod: `diff train_resnet34_torch.py train_hvd_torch.py` is the
conversion. Prints every step's time, images/s, loss and the time left, then the images/s of the timed steps.
"""
import itertools
import sys

import resnet_common  # first: with --framework tensorflow it runs the TensorFlow twin before PyTorch loads

resnet_common.hand_over(__file__)

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from hvdkit.scale.meter import Meter  # noqa: E402
from hvdkit.torch.resnet import resnet34  # noqa: E402

import resnet_data_torch  # noqa: E402


def main():
    args = resnet_common.parse_args()
    torch.manual_seed(args.seed)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    batch = args.batch_size
    samples = batch * args.total_steps
    data, classes = resnet_data_torch.load(args, samples)
    loader = torch.utils.data.DataLoader(data, batch, shuffle=args.shuffle, drop_last=True)
    resnet_common.check_steps(len(loader), len(data), batch)
    model = resnet34(classes).to(device).train()
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)

    meter = Meter(args.total_steps, args.warmup_steps, batch,
                  every=args.print_every)
    meter.say(resnet_common.banner(args, "torch", batch,
                                   cpu=device == "cpu"))
    batches = resnet_data_torch.ready(loader, args, device)
    for x, y in itertools.islice(batches, args.total_steps):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        meter.step(loss.item())  # .item() waits for the device: the clock stops when the step is done
    loss_sum, count = meter.loss_pair()
    loss = loss_sum / count
    ranks = [meter.summary()]
    fields = resnet_common.record_fields(args, "torch", classes, {"torch": torch.__version__})
    meter.finish(ranks, loss, **fields)
    return 0


if __name__ == "__main__":
    sys.exit(resnet_common.run(main))
