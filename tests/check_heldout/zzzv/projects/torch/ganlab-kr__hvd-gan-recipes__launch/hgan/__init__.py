"""horovod GAN recipes"""
