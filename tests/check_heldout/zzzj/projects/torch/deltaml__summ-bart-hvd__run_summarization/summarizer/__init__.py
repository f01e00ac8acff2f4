from .trainer import Trainer, TrainingArguments  # noqa: F401
