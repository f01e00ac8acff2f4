import torch
import torch.utils.data as tud
import torchvision.transforms as T
import torchvision.datasets as dsets


class FakeFaces(tud.Dataset):
    def __init__(self, n=512, size=64):
        g = torch.Generator().manual_seed(0)
        self.x = torch.rand(n, 3, size, size, generator=g) * 2 - 1

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], 0


def make_loader(opt, rank, world):
    if opt.dataset == "fake":
        ds = FakeFaces(size=opt.img_size)
    else:
        tf = T.Compose([T.Resize(opt.img_size), T.CenterCrop(opt.img_size), T.ToTensor(),
                        T.Normalize((0.5, 0.5, 0.5), (0.5, 0.5, 0.5))])
        ds = dsets.ImageFolder(opt.dataroot, transform=tf)
    sampler = tud.distributed.DistributedSampler(ds, num_replicas=world, rank=rank, shuffle=True)
    loader = tud.DataLoader(ds, batch_size=opt.batch_size, sampler=sampler,
                            num_workers=opt.workers, drop_last=True, pin_memory=True)
    return loader, sampler
