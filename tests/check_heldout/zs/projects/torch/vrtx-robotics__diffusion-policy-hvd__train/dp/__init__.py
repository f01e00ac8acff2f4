from .model import NoisePredNet, DDPMSchedule  # noqa: F401
