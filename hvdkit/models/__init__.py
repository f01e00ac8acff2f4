"""Models that need one framework and no Horovod: a sequential script imports them where Horovod is absent.

    from hvdkit.models.resnet_torch import resnet34     # torch only
    from hvdkit.models.resnet_tf import resnet34        # TensorFlow / Keras 3 only
    from hvdkit.models.cost import time_note            # neither: a CPU run's expected duration

This package itself imports no framework.
"""
