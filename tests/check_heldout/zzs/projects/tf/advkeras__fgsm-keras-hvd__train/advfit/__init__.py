from .model import AdversarialModel, build_backbone
