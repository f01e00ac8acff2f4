"""Step 6: a model broadcast, then made anew under the same name before the first step. A Trainer builds its
model and broadcasts it in `__init__`, and `fit()` builds it again once the data tells the catalogue size:
the model trained is a fresh initialisation on every rank. Broadcasting after the rebuild is right, and so
is a resume helper handed the model (`epoch, model = resume(model)`: it gives the same module back).

Written from scratch for these tests: a recommender project with its Trainer in a package."""

from hvdkit.check import FLAGGED, OK

from crash_scripts import check_project

ENTRY = '''
    """Session recommender.  horovodrun -np 4 python train.py"""
    import torch
    import horovod.torch as hvd

    from rec.trainer import Trainer


    def main():
        hvd.init()
        torch.set_num_threads(1)
        cfg = {"items": 0, "dim": 32, "lr": 1e-3}
        clicks = torch.randint(1, 900, (8000, 2))
        Trainer(cfg).fit(clicks[hvd.rank()::hvd.size()], int(clicks.max()) + 1)


    if __name__ == "__main__":
        main()
'''

TRAINER = '''
    import torch
    import horovod.torch as hvd


    class Trainer:
        def __init__(self, cfg):
            self.cfg = cfg
            self._build()
            hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)

        def _build(self):
            self.model = torch.nn.Embedding(max(self.cfg["items"], 2), self.cfg["dim"])
            opt = torch.optim.Adam(self.model.parameters(), lr=self.cfg["lr"] * hvd.size())
            self.optimizer = hvd.DistributedOptimizer(opt, named_parameters=self.model.named_parameters())

        def fit(self, clicks, items):
            if items != self.cfg["items"]:
                self.cfg["items"] = items
                {rebuild}
            for a, b in clicks.split(64):
                self.optimizer.zero_grad()
                loss = -(self.model(a) * self.model(b)).sum(-1).sigmoid().log().mean()
                loss.backward()
                self.optimizer.step()
            if hvd.rank() == 0:
                torch.save(self.model.state_dict(), "rec.pt")
'''


def step6(tmp_path, rebuild):
    files = {"train.py": ENTRY, "rec/__init__.py": "", "rec/trainer.py": TRAINER.replace("{rebuild}", rebuild)}
    findings = check_project(tmp_path, files, script="train.py")[2]
    return findings[6]


def test_a_model_built_again_after_its_broadcast_is_not_the_one_broadcast(tmp_path):
    f = step6(tmp_path, "self._build()")
    assert f.verdict in FLAGGED and "made anew" in f.evidence, f


def test_a_model_built_again_and_broadcast_again_is_ok(tmp_path):
    f = step6(tmp_path, "self._build()\n                hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)")
    assert f.verdict == OK, f


def test_a_model_moved_or_handed_back_is_the_same_model(tmp_path):
    f = step6(tmp_path, "self.model = self.model.to(torch.device('cpu'))")
    assert f.verdict == OK, f


HEAD_ENTRY = '''
    """Cell segmentation fine-tuning.  horovodrun -np 4 python train.py"""
    import torch
    import horovod.torch as hvd

    from seg.models import UNetLite, create_model


    def main():
        hvd.init()
        torch.set_num_threads(1)
        {seed}
        model = {make}
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        model.load_pretrained("generalist.pt", 4)
        {again}
        opt = hvd.DistributedOptimizer(torch.optim.AdamW(model.parameters(), lr=1e-4 * hvd.size()),
                                       named_parameters=model.named_parameters())
        x = torch.randn(64, 3, 16, 16)[hvd.rank()::hvd.size()]
        for i in range(0, len(x), 4):
            opt.zero_grad()
            model(x[i:i + 4]).mean().backward()
            opt.step()
        if hvd.rank() == 0:
            torch.save(model.state_dict(), "cells.pt")


    if __name__ == "__main__":
        main()
'''

MODELS = '''
    import torch
    import torch.nn as nn


    class UNetLite(nn.Module):
        def __init__(self, in_ch, out_ch):
            super().__init__()
            self.stem = nn.Conv2d(in_ch, 8, 3, padding=1)
            self.head = nn.Conv2d(8, out_ch, 1)

        def forward(self, x):
            return self.head(torch.relu(self.stem(x)))

        def load_pretrained(self, path, out_ch):
            state = torch.load(path, map_location="cpu")
            self.load_state_dict({k: v for k, v in state.items() if not k.startswith("head.")}, strict=False)
            self.head = nn.Conv2d(self.head.in_channels, out_ch, 1)


    def create_model(arch, out_ch):
        if arch == "lite":
            return UNetLite(3, out_ch)
        return UNetLite(3, out_ch)
'''


def head_step6(tmp_path, seed="pass", again="pass", make="UNetLite(3, 2)"):
    entry = HEAD_ENTRY.replace("{seed}", seed).replace("{again}", again).replace("{make}", make)
    files = {"train.py": entry, "seg/__init__.py": "",
             "seg/models.py": MODELS}
    findings = check_project(tmp_path, files, script="train.py")[2]
    return findings[6]


def test_a_head_replaced_after_the_broadcast_starts_different_on_each_rank(tmp_path):
    f = head_step6(tmp_path)
    assert f.verdict in FLAGGED and "model.head" in f.evidence, f


def test_a_head_replaced_in_a_model_a_factory_made_and_moved_is_found(tmp_path):
    f = head_step6(tmp_path, make='create_model("lite", 2).to(torch.device("cpu"))')
    assert f.verdict in FLAGGED and "model.head" in f.evidence, f


def test_a_head_replaced_then_broadcast_or_seeded_alike_is_ok(tmp_path):
    assert head_step6(tmp_path / "a", again="hvd.broadcast_parameters(model.state_dict(), root_rank=0)").verdict == OK
    assert head_step6(tmp_path / "b", seed="torch.manual_seed(0)").verdict == OK


# An element of a torchvision-style head replaced in the script (`model.classifier[1] = nn.Linear(...)`)
# after the backbone's broadcast: the new layer starts different on each rank, as a replaced attribute does.
ELEMENT = '''
    """Flower classifier fine-tuning.  horovodrun -np 4 python finetune.py"""
    import torch
    import torch.nn as nn
    import horovod.torch as hvd


    class Backbone(nn.Module):
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
            self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(8, 1000))

        def forward(self, x):
            return self.classifier(self.features(x))


    def main():
        hvd.init()
        torch.set_num_threads(1)
        {seed}
        model = Backbone()
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        model.classifier[1] = nn.Linear(8, 102)
        opt = hvd.DistributedOptimizer(torch.optim.SGD(model.parameters(), lr=0.01 * hvd.size()),
                                       named_parameters=model.named_parameters())
        x, y = torch.randn(64, 3, 12, 12), torch.randint(0, 102, (64,))
        for i in range(hvd.rank() * 4, 64, hvd.size() * 4):
            opt.zero_grad()
            nn.functional.cross_entropy(model(x[i:i + 4]), y[i:i + 4]).backward()
            opt.step()
        if hvd.rank() == 0:
            torch.save(model.state_dict(), "flowers.pt")


    if __name__ == "__main__":
        main()
'''


def test_an_element_of_a_head_replaced_after_the_broadcast_starts_different_on_each_rank(tmp_path):
    f = check_project(tmp_path, {"finetune.py": ELEMENT.replace("{seed}", "pass")}, script="finetune.py")[2][6]
    assert f.verdict in FLAGGED and "model.classifier" in f.evidence, f


def test_an_element_of_a_head_replaced_with_a_common_seed_is_ok(tmp_path):
    f = check_project(tmp_path, {"finetune.py": ELEMENT.replace("{seed}", "torch.manual_seed(7)")},
                      script="finetune.py")[2][6]
    assert f.verdict == OK, f
