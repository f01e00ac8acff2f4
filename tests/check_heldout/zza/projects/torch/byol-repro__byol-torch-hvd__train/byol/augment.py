from torchvision import transforms

_MEAN, _STD = (0.43, 0.42, 0.39), (0.27, 0.26, 0.27)


def byol_views(size):
    blur = transforms.GaussianBlur(kernel_size=9, sigma=(0.1, 2.0))
    view1 = transforms.Compose([
        transforms.RandomResizedCrop(size, scale=(0.08, 1.0)),
        transforms.RandomHorizontalFlip(),
        transforms.RandomApply([transforms.ColorJitter(0.4, 0.4, 0.2, 0.1)], p=0.8),
        transforms.RandomGrayscale(0.2),
        blur,
        transforms.ToTensor(),
        transforms.Normalize(_MEAN, _STD),
    ])
    view2 = transforms.Compose([
        transforms.RandomResizedCrop(size, scale=(0.08, 1.0)),
        transforms.RandomHorizontalFlip(),
        transforms.RandomApply([transforms.ColorJitter(0.4, 0.4, 0.2, 0.1)], p=0.8),
        transforms.RandomGrayscale(0.2),
        transforms.RandomApply([blur], p=0.1),
        transforms.RandomSolarize(128, p=0.2),
        transforms.ToTensor(),
        transforms.Normalize(_MEAN, _STD),
    ])
    return lambda img: (view1(img), view2(img))
