class AttrDict(dict):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.__dict__ = self

    def override(self, spec):
        if not spec:
            return self
        for kv in spec.split(","):
            k, v = kv.split("=")
            self[k.strip()] = type(self[k.strip()])(v)
        return self


params = AttrDict(
    # training
    batch_size=32,
    learning_rate=2e-4,
    max_grad_norm=1.0,
    log_every=50,
    save_every=10000,
    # audio
    sample_rate=22050,
    n_mels=80,
    hop_samples=300,
    crop_mel_frames=24,
    # model / noise schedule
    noise_schedule_start=1e-6,
    noise_schedule_end=0.01,
    noise_steps=1000,
    residual_channels=32,
)
