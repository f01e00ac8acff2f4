"""CS182 HW4 -- fine-tuning a pretrained CNN on Imagenette, multi-GPU with Horovod."""
