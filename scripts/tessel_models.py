"""The benchmark models, built with random weights from a fixed seed.

Shared by scripts/export-models.py (which exports them to ONNX) and bench/compare-models.py
(which rebuilds them to time PyTorch eager): the same name and seed give the same weights.
No pretrained weights are ever downloaded.
"""
import torch
from torch import nn
from torch.nn import functional as F

SEED = 0


class Bert(nn.Module):
    """A BERT encoder: token + position embeddings, LayerNorm, post-norm transformer layers.

    Input: int64 token ids [1, seq]; output: the last hidden state [1, seq, hidden].
    """

    def __init__(self, layers, hidden, heads, ffn, seq, vocab=30522):
        super().__init__()
        self.tokens = nn.Embedding(vocab, hidden)
        self.positions = nn.Parameter(torch.randn(1, seq, hidden) * 0.02)
        self.norm = nn.LayerNorm(hidden, eps=1e-12)
        layer = nn.TransformerEncoderLayer(hidden, heads, ffn, dropout=0.0, activation="gelu",
                                           layer_norm_eps=1e-12, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        # TransformerEncoder deep-copies one layer: give each copy its own weights.
        for copy in self.encoder.layers:
            copy.self_attn._reset_parameters()
            copy.self_attn.out_proj.reset_parameters()
            copy.linear1.reset_parameters()
            copy.linear2.reset_parameters()

    def forward(self, ids):
        return self.encoder(self.norm(self.tokens(ids) + self.positions))


class Gpt(nn.Module):
    """A GPT-style decoder: token + position embeddings, pre-norm transformer layers whose
    self-attention sees only earlier positions (a causal mask), a final LayerNorm and the
    language-model head tied to the token embedding.

    Input: int64 token ids [1, seq]; output: the next-token logits [1, seq, vocab].
    """

    def __init__(self, layers, hidden, heads, seq, vocab):
        super().__init__()
        self.tokens = nn.Embedding(vocab, hidden)
        self.positions = nn.Parameter(torch.randn(1, seq, hidden) * 0.02)
        layer = nn.TransformerEncoderLayer(hidden, heads, 4 * hidden, dropout=0.0,
                                           activation="gelu", batch_first=True,
                                           norm_first=True)
        self.decoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        for copy in self.decoder.layers:
            copy.self_attn._reset_parameters()
            copy.linear1.reset_parameters()
            copy.linear2.reset_parameters()
        self.norm = nn.LayerNorm(hidden)
        self.register_buffer(
            "causal", torch.triu(torch.full((seq, seq), float("-inf")), diagonal=1))

    def forward(self, ids):
        x = self.decoder(self.tokens(ids) + self.positions, mask=self.causal)
        return self.norm(x) @ self.tokens.weight.t()


class LstmLanguageModel(nn.Module):
    """A word-level LSTM language model: embedding, stacked LSTM layers, a linear decoder.

    Input: int64 token ids [1, seq]; output: the next-token logits [1, seq, vocab].
    """

    def __init__(self, layers, embedding, hidden, vocab):
        super().__init__()
        self.tokens = nn.Embedding(vocab, embedding)
        self.lstm = nn.LSTM(embedding, hidden, num_layers=layers, batch_first=True)
        self.decoder = nn.Linear(hidden, vocab)

    def forward(self, ids):
        states, _ = self.lstm(self.tokens(ids))
        return self.decoder(states)


class GruTagger(nn.Module):
    """A sequence tagger: embedding, a bidirectional GRU, a linear layer of tag scores.

    Input: int64 token ids [1, seq]; output: the tag scores [1, seq, tags].
    """

    def __init__(self, embedding, hidden, vocab, tags):
        super().__init__()
        self.tokens = nn.Embedding(vocab, embedding)
        self.gru = nn.GRU(embedding, hidden, batch_first=True, bidirectional=True)
        self.scores = nn.Linear(2 * hidden, tags)

    def forward(self, ids):
        states, _ = self.gru(self.tokens(ids))
        return self.scores(states)


class MaskedRows(nn.Module):
    """Keeps the rows a linear score marks positive and runs an MLP on them alone: boolean
    indexing, which the exporter writes as NonZero, Transpose and GatherND.

    Input: float32 features [rows, features]; output: [kept rows, features], the number of
    kept rows known only at run time.
    """

    def __init__(self, features, hidden):
        super().__init__()
        self.score = nn.Linear(features, 1)
        self.mlp = nn.Sequential(nn.Linear(features, hidden), nn.GELU(),
                                 nn.Linear(hidden, features))

    def forward(self, x):
        keep = self.score(x)[:, 0] > 0
        return self.mlp(x[keep])


class MaskedPool(MaskedRows):
    """MaskedRows pooled over the kept rows: their features' mean and maximum, side by side
    (reductions over the axis whose extent the run finds).

    Input: float32 features [rows, features]; output: [2 * features].
    """

    def forward(self, x):
        kept = super().forward(x)
        return torch.cat([kept.mean(0), kept.amax(0)])


@torch.jit.script
def _greedy_decode(token, table, w_ih, w_hh, b_ih, b_hh, w_out, b_out, steps: int):
    """Runs a GRU cell (written out, gates r, z, n) `steps` times on its own argmax tokens."""
    state = torch.zeros(1, w_hh.shape[1])
    logits = torch.zeros(steps, w_out.shape[0])  # a fixed buffer, one row written per step
    (w_ir, w_iz, w_in), (w_hr, w_hz, w_hn) = w_ih.chunk(3), w_hh.chunk(3)
    (b_ir, b_iz, b_in), (b_hr, b_hz, b_hn) = b_ih.chunk(3), b_hh.chunk(3)
    for i in range(steps):
        x = table[token]
        reset = torch.sigmoid(F.linear(x, w_ir, b_ir) + F.linear(state, w_hr, b_hr))
        update = torch.sigmoid(F.linear(x, w_iz, b_iz) + F.linear(state, w_hz, b_hz))
        new = torch.tanh(F.linear(x, w_in, b_in) + reset * F.linear(state, w_hn, b_hn))
        state = (1 - update) * new + update * state
        step = F.linear(state, w_out, b_out)
        token = step.argmax(dim=1)
        logits[i] = step[0]
    return logits


class GreedyDecoder(nn.Module):
    """A greedy decoder: an embedding, a GRU cell and a linear decoder, looped on its argmax.

    Input: an int64 start token [1]; output: the logits of each step [steps, vocab].
    The loop is TorchScript, so the export keeps it as an ONNX Loop instead of unrolling it.
    """

    def __init__(self, embedding, hidden, vocab, steps):
        super().__init__()
        self.tokens = nn.Embedding(vocab, embedding)
        self.cell = nn.GRUCell(embedding, hidden)  # its weights only: the loop spells it out
        self.decoder = nn.Linear(hidden, vocab)
        self.steps = steps

    def forward(self, token):
        cell = self.cell
        return _greedy_decode(token, self.tokens.weight, cell.weight_ih, cell.weight_hh,
                              cell.bias_ih, cell.bias_hh, self.decoder.weight,
                              self.decoder.bias, self.steps)


class SegmentationOut(nn.Module):
    """A torchvision segmentation network's "out" map alone (they return a dict)."""

    def __init__(self, network):
        super().__init__()
        self.network = network

    def forward(self, image):
        return self.network(image)["out"]


def _torchvision(name, **options):
    import torchvision.models
    return lambda: getattr(torchvision.models, name)(weights=None, **options)


def _segmentation(name):
    def build():
        import torchvision.models.segmentation
        network = getattr(torchvision.models.segmentation, name)(weights=None,
                                                                 weights_backbone=None)
        return SegmentationOut(network)
    return build


def _image_input():
    return torch.randn(1, 3, 224, 224)


def _ids_input(seq=128, vocab=30522):
    return torch.randint(0, vocab, (1, seq), dtype=torch.int64)


# name -> (builder, input maker); a model of several inputs has an input maker that returns
# a tuple of them, in the model's order.
MODELS = {
    "squeezenet1_1": (_torchvision("squeezenet1_1"), _image_input),
    "mobilenet_v2": (_torchvision("mobilenet_v2"), _image_input),
    "resnet18": (_torchvision("resnet18"), _image_input),
    "resnet50": (_torchvision("resnet50"), _image_input),
    "bert_tiny": (lambda: Bert(layers=2, hidden=128, heads=2, ffn=512, seq=128), _ids_input),
    "bert_base": (lambda: Bert(layers=12, hidden=768, heads=12, ffn=3072, seq=128), _ids_input),
    # The zoo: one model or more of each family in common use.
    "efficientnet_b0": (_torchvision("efficientnet_b0"), _image_input),
    "mobilenet_v3_large": (_torchvision("mobilenet_v3_large"), _image_input),
    "regnet_y_400mf": (_torchvision("regnet_y_400mf"), _image_input),
    "resnext50_32x4d": (_torchvision("resnext50_32x4d"), _image_input),
    "wide_resnet50_2": (_torchvision("wide_resnet50_2"), _image_input),
    "densenet121": (_torchvision("densenet121"), _image_input),
    "shufflenet_v2_x1_0": (_torchvision("shufflenet_v2_x1_0"), _image_input),
    "mnasnet1_0": (_torchvision("mnasnet1_0"), _image_input),
    "googlenet": (_torchvision("googlenet", aux_logits=False, init_weights=True), _image_input),
    "convnext_tiny": (_torchvision("convnext_tiny"), _image_input),
    "vit_b_16": (_torchvision("vit_b_16"), _image_input),
    "swin_t": (_torchvision("swin_t"), _image_input),
    "lraspp_mobilenet_v3_large": (_segmentation("lraspp_mobilenet_v3_large"), _image_input),
    "gpt_decoder": (lambda: Gpt(layers=6, hidden=512, heads=8, seq=128, vocab=16000),
                    lambda: _ids_input(seq=128, vocab=16000)),
    # Recurrent networks.
    "lstm_lm": (lambda: LstmLanguageModel(layers=2, embedding=256, hidden=512, vocab=10000),
                lambda: _ids_input(seq=35, vocab=10000)),
    "gru_tagger": (lambda: GruTagger(embedding=128, hidden=256, vocab=8000, tags=20),
                   lambda: _ids_input(seq=64, vocab=8000)),
    # Data-dependent extents: an MLP on the rows a score keeps (NonZero feeding kernels), and
    # its features pooled over them.
    "masked_rows": (lambda: MaskedRows(features=64, hidden=256),
                    lambda: torch.randn(512, 64)),
    "masked_pool": (lambda: MaskedPool(features=64, hidden=256),
                    lambda: torch.randn(512, 64)),
    # Control flow: a decoding loop of 16 steps (an ONNX Loop).
    "greedy_decoder": (lambda: GreedyDecoder(embedding=128, hidden=256, vocab=8000, steps=16),
                       lambda: torch.randint(0, 8000, (1,), dtype=torch.int64)),
}


def _randomize_defaults(model):
    """Replaces the constant initialisations (norm scale 1 / shift 0, zero biases) with
    random values, so no layer is an identity."""
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, (nn.BatchNorm2d, nn.LayerNorm)):
                module.weight.uniform_(0.5, 1.5)
                module.bias.normal_(0.0, 0.1)
            for name, param in module.named_parameters(recurse=False):
                if "bias" in name and not isinstance(module, (nn.BatchNorm2d, nn.LayerNorm)):
                    param.normal_(0.0, 0.02)


def _calibrate_batch_norms(model, make_input):
    """Sets the BatchNorm running statistics to those of the model's own activations on
    random inputs, as training would: the activations keep a trained network's scale
    instead of growing layer after layer (which would leave the outputs ill-conditioned)."""
    norms = [m for m in model.modules() if isinstance(m, nn.BatchNorm2d)]
    if not norms:
        return
    for norm in norms:
        norm.reset_running_stats()
        norm.momentum = None  # a cumulative average over the calibration batches
    model.train()
    with torch.no_grad():
        for _ in range(2):
            model(torch.cat([make_input(), make_input()]))
    for norm in norms:
        norm.momentum = 0.1


def example_input(name):
    """A fresh example input of `name` (random, from the global generator): one sample."""
    return MODELS[name][1]()


def build(name):
    """Returns (model in eval mode, example input) for a model name, deterministically."""
    if name not in MODELS:
        raise KeyError(f"unknown model '{name}'; known: {', '.join(MODELS)}")
    builder, make_input = MODELS[name]
    torch.manual_seed(SEED)
    model = builder()
    _randomize_defaults(model)
    _calibrate_batch_norms(model, make_input)
    model.eval()
    return model, make_input()
