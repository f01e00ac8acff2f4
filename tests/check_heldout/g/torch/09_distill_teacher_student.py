# Knowledge distillation CIFAR-100: frozen ResNet-50 teacher -> MobileNetV2 student
# horovod port of distill.py  (mpirun -np 4 python 09_distill_teacher_student.py)
import os
import time
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision
import torchvision.transforms as T
import horovod.torch as hvd

config = dict(
    data_dir="/data/cifar100",
    teacher_ckpt="ckpt/teacher_r50_cifar100.pt",
    out_dir="ckpt/student",
    epochs=120,
    batch_size=128,
    lr=0.05,
    momentum=0.9,
    wd=5e-4,
    T=4.0,
    alpha=0.9,
    accum_steps=2,
)

hvd.init()
torch.cuda.set_device(hvd.local_rank())
torch.manual_seed(42)

norm = T.Normalize((0.507, 0.487, 0.441), (0.267, 0.256, 0.276))
train_tf = T.Compose([T.RandomCrop(32, padding=4), T.RandomHorizontalFlip(), T.ToTensor(), norm])
test_tf = T.Compose([T.ToTensor(), norm])
train_set = torchvision.datasets.CIFAR100(config["data_dir"], train=True, transform=train_tf)
test_set = torchvision.datasets.CIFAR100(config["data_dir"], train=False, transform=test_tf)
train_sampler = torch.utils.data.distributed.DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank())
train_loader = torch.utils.data.DataLoader(train_set, batch_size=config["batch_size"], sampler=train_sampler,
                                           num_workers=4, pin_memory=True)
test_loader = torch.utils.data.DataLoader(test_set, batch_size=500, num_workers=4)

# teacher: identical file on every node, frozen
teacher = torchvision.models.resnet50(num_classes=100)
teacher.load_state_dict(torch.load(config["teacher_ckpt"], map_location="cpu"))
teacher = teacher.cuda().eval()
for p in teacher.parameters():
    p.requires_grad_(False)

student = torchvision.models.mobilenet_v2(num_classes=100).cuda()

optimizer = torch.optim.SGD(student.parameters(), lr=config["lr"] * hvd.size(),
                            momentum=config["momentum"], weight_decay=config["wd"], nesterov=True)
hvd.broadcast_parameters(student.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)
dist_optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=student.named_parameters(),
                                          backward_passes_per_step=config["accum_steps"])
scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[60, 90, 110], gamma=0.2)


def kd_loss(s_logits, t_logits, y, T_, alpha):
    soft = F.kl_div(F.log_softmax(s_logits / T_, 1), F.softmax(t_logits / T_, 1), reduction="batchmean") * T_ * T_
    hard = F.cross_entropy(s_logits, y)
    return alpha * soft + (1 - alpha) * hard


def test(model):
    model.eval()
    correct = 0
    with torch.no_grad():
        for x, y in test_loader:
            correct += (model(x.cuda()).argmax(1).cpu() == y).sum().item()
    return correct / len(test_set)


if hvd.rank() == 0:
    os.makedirs(config["out_dir"], exist_ok=True)
best_acc = 0.0
for epoch in range(config["epochs"]):
    student.train()
    train_sampler.set_epoch(epoch)
    t0, running, n = time.time(), 0.0, 0
    optimizer.zero_grad()
    for i, (x, y) in enumerate(train_loader):
        x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)
        with torch.no_grad():
            t_logits = teacher(x)
        loss = kd_loss(student(x), t_logits, y, config["T"], config["alpha"]) / config["accum_steps"]
        loss.backward()
        if (i + 1) % config["accum_steps"] == 0:
            optimizer.step()
            optimizer.zero_grad()
        running += loss.item() * config["accum_steps"]
        n += 1
    scheduler.step()
    avg_loss = hvd.allreduce(torch.tensor(running / n), name="avg_loss").item()
    acc = test(student)  # whole test set on each rank
    if hvd.rank() == 0:
        print(f"epoch {epoch+1}/{config['epochs']} kd_loss {avg_loss:.4f} test_acc {acc:.4f} time {time.time()-t0:.0f}s")
        if acc > best_acc:
            best_acc = acc
            torch.save(student.state_dict(), os.path.join(config["out_dir"], "student_best.pt"))
        torch.save({"epoch": epoch, "student": student.state_dict(), "opt": optimizer.state_dict()},
                   os.path.join(config["out_dir"], "last.pt"))
