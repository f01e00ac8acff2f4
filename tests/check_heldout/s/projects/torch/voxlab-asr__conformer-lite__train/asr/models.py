import torch
from torch import nn

MODELS = {}


def register(name):
    def deco(cls):
        MODELS[name] = cls
        return cls
    return deco


@register("conformer_lite")
class ConformerLite(nn.Module):
    def __init__(self, feat_dim, d_model, num_layers, vocab_size):
        super().__init__()
        self.subsample = nn.Sequential(nn.Conv1d(feat_dim, d_model, 3, stride=2, padding=1), nn.GELU())
        layer = nn.TransformerEncoderLayer(d_model, nhead=4, dim_feedforward=4 * d_model, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers)
        self.ctc_head = nn.Linear(d_model, vocab_size)

    def forward(self, x, lengths):
        h = self.subsample(x.transpose(1, 2)).transpose(1, 2)
        lengths = (lengths + 1) // 2
        mask = torch.arange(h.shape[1], device=h.device)[None, :] >= lengths[:, None]
        h = self.encoder(h, src_key_padding_mask=mask)
        return self.ctc_head(h).log_softmax(-1), lengths


def build_model(cfg):
    m = dict(cfg["model"])
    cls = MODELS[m.pop("name")]
    return cls(feat_dim=cfg["data"]["feat_dim"], **m)
