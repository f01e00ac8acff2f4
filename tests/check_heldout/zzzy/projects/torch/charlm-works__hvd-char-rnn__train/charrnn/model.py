import torch
import torch.nn as nn


class CharRNN(nn.Module):
    def __init__(self, ntoken, ninp, nhid, nlayers, dropout=0.2, cell='lstm'):
        super(CharRNN, self).__init__()
        self.cell = cell
        self.nhid, self.nlayers = nhid, nlayers
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        rnn_cls = nn.LSTM if cell == 'lstm' else nn.GRU
        self.rnn = rnn_cls(ninp, nhid, nlayers, dropout=dropout if nlayers > 1 else 0.)
        self.decoder = nn.Linear(nhid, ntoken)

    def forward(self, x, hidden):
        emb = self.drop(self.encoder(x))
        out, hidden = self.rnn(emb, hidden)
        out = self.drop(out)
        return self.decoder(out.view(-1, out.size(2))), hidden

    def init_hidden(self, bsz):
        w = next(self.parameters())
        if self.cell == 'lstm':
            return (w.new_zeros(self.nlayers, bsz, self.nhid), w.new_zeros(self.nlayers, bsz, self.nhid))
        return w.new_zeros(self.nlayers, bsz, self.nhid)


def repackage_hidden(h):
    # cut the graph between bptt windows
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)
