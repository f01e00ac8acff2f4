"""PyTorch code meant for GPUs and downloads, run on this machine under `hvdkit check --run`.

Without CUDA, `torch.cuda.set_device(hvd.local_rank())`, `model.cuda()`, `x.to('cuda')` or
`torch.zeros(..., device='cuda')` raise before any step could be observed. Here they act on the CPU:
set_device does nothing, `.cuda()` and moves to a CUDA device keep the tensor (or module) where it is,
factories given a CUDA device make CPU tensors, device_count() is the ranks on this node.
torch.cuda.is_available() keeps its true answer (False), so scripts that choose the CPU themselves are
run as written. torchvision's dataset downloads (MNIST, CIFAR, ...) become small synthetic datasets of
the real image size, mode and targets. Every substitution is recorded (obs.on_simulated) for the report.
"""
import functools

from hvdkit.check.run.observer import local_size

SAMPLES = {True: 2048, False: 512}  # train, test
SEED = 1234
FACTORIES = ("tensor", "as_tensor", "zeros", "ones", "empty", "full", "rand", "randn", "randint", "randperm",
             "arange", "linspace", "eye", "zeros_like", "ones_like", "empty_like", "full_like", "rand_like",
             "randn_like")
# torchvision class -> (channels, height, width, classes, how the targets are kept: "tensor", "list", "labels")
IMAGE_SETS = {"MNIST": (1, 28, 28, 10, "tensor"), "FashionMNIST": (1, 28, 28, 10, "tensor"),
              "KMNIST": (1, 28, 28, 10, "tensor"), "CIFAR10": (3, 32, 32, 10, "list"),
              "CIFAR100": (3, 32, 32, 100, "list"), "SVHN": (3, 32, 32, 10, "labels")}


def install(torch, obs):
    if not torch.cuda.is_available():
        _cuda_on_cpu(torch, obs)


def _is_cuda(device):
    kind = getattr(device, "type", device)
    return isinstance(kind, str) and kind.startswith("cuda")


def _cuda_on_cpu(torch, obs):
    cuda = torch.cuda

    def said(what):  # one line per kind of call (the arguments vary from batch to batch)
        obs.on_simulated(f"{what} (no CUDA here: the rank runs on the CPU)")

    def set_device(device):
        said("torch.cuda.set_device() did nothing")
    cuda.set_device = set_device
    cuda.device_count = functools.wraps(cuda.device_count)(lambda: local_size(obs))
    cuda.current_device = functools.wraps(cuda.current_device)(lambda: 0)
    cuda.synchronize = functools.wraps(cuda.synchronize)(lambda device=None: None)

    def to_cpu(self, *a, **k):
        said(f"{'Tensor' if torch.is_tensor(self) else 'Module'}.cuda() kept it on the CPU")
        return self
    torch.Tensor.cuda = to_cpu
    torch.nn.Module.cuda = to_cpu

    def moving(real, name):
        @functools.wraps(real)
        def to(self, *a, **k):
            if a and (_is_cuda(a[0]) or (type(a[0]) is int)):  # .to(0) means cuda:0
                said(f"{name}(cuda) kept it on the CPU")
                a = ("cpu",) + a[1:]
            if _is_cuda(k.get("device")):
                said(f"{name}(device=cuda) kept it on the CPU")
                k["device"] = "cpu"
            return real(self, *a, **k)
        return to
    torch.Tensor.to = moving(torch.Tensor.to, "Tensor.to")
    torch.nn.Module.to = moving(torch.nn.Module.to, "Module.to")

    def making(real, name):
        @functools.wraps(real)
        def make(*a, **k):
            if _is_cuda(k.get("device")):
                said(f"torch.{name}(device=cuda) made a CPU tensor")
                k["device"] = "cpu"
            return real(*a, **k)
        return make
    for name in FACTORIES:
        setattr(torch, name, making(getattr(torch, name), name))


def install_datasets(datasets, torch, obs):
    """Swap torchvision.datasets' downloading image sets for synthetic ones (module given, imports none)."""
    for name, spec in IMAGE_SETS.items():
        if hasattr(datasets, name):
            setattr(datasets, name, _synthetic_class(name, spec, torch, obs))


def _synthetic_class(name, spec, torch, obs):
    channels, height, width, classes, targets_as = spec

    class Synthetic(torch.utils.data.Dataset):
        """A stand-in for torchvision.datasets.<name>: PIL images and int targets, as the real one gives."""

        def __init__(self, root=None, train=True, transform=None, target_transform=None, download=False,
                     split=None, **_):
            obs.on_simulated(f"torchvision.datasets.{name} replaced by {SAMPLES[True]} train / {SAMPLES[False]} "
                             f"test synthetic {channels}x{height}x{width} images: no download")
            self.train = train if split is None else split == "train"
            self.transform, self.target_transform = transform, target_transform
            n = SAMPLES[bool(self.train)]
            gen = torch.Generator().manual_seed(SEED + (0 if self.train else 1))
            shape = (n, height, width) if channels == 1 else (n, height, width, channels)
            pixels = torch.randint(0, 256, shape, dtype=torch.uint8, generator=gen)
            labels = torch.randint(0, classes, (n,), generator=gen)
            self.classes = [str(i) for i in range(classes)]
            if targets_as == "tensor":
                self.data, self.targets = pixels, labels
            elif targets_as == "list":
                self.data, self.targets = pixels.numpy(), labels.tolist()
            else:  # SVHN keeps channels first and calls them labels
                self.data, self.labels = pixels.permute(0, 3, 1, 2).numpy(), labels.numpy()

        def __len__(self):
            return len(self.data)

        def __getitem__(self, i):
            from PIL import Image
            img = self.data[i]
            img = img.numpy() if hasattr(img, "numpy") else img
            # Pillow reads the mode from the array: 2-D uint8 is "L", HxWx3 uint8 is "RGB", as the real sets give.
            img = Image.fromarray(img.transpose(1, 2, 0) if img.ndim == 3 and img.shape[0] == channels else img)
            target = int(self.targets[i] if hasattr(self, "targets") else self.labels[i])
            if self.transform is not None:
                img = self.transform(img)
            if self.target_transform is not None:
                target = self.target_transform(target)
            return img, target

    Synthetic.__name__ = Synthetic.__qualname__ = name
    return Synthetic
