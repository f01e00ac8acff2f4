from .resnet import ResNet18, ResNet34
from .vgg import VGG

MODELS = {
    'resnet18': ResNet18,
    'resnet34': ResNet34,
    'vgg11': lambda: VGG('VGG11'),
    'vgg16': lambda: VGG('VGG16'),
}
