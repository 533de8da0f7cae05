"""The benchmark models, built with random weights from a fixed seed.

Shared by scripts/export-models.py (which exports them to ONNX) and bench/compare-models.py
(which rebuilds them to time PyTorch eager): the same name and seed give the same weights.
No pretrained weights are ever downloaded.
"""
import torch
from torch import nn

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


def _torchvision(name):
    import torchvision.models
    return lambda: getattr(torchvision.models, name)(weights=None)


def _image_input():
    return torch.randn(1, 3, 224, 224)


def _ids_input(seq=128, vocab=30522):
    return torch.randint(0, vocab, (1, seq), dtype=torch.int64)


# name -> (builder, input maker)
MODELS = {
    "squeezenet1_1": (_torchvision("squeezenet1_1"), _image_input),
    "mobilenet_v2": (_torchvision("mobilenet_v2"), _image_input),
    "resnet18": (_torchvision("resnet18"), _image_input),
    "resnet50": (_torchvision("resnet50"), _image_input),
    "bert_tiny": (lambda: Bert(layers=2, hidden=128, heads=2, ffn=512, seq=128), _ids_input),
    "bert_base": (lambda: Bert(layers=12, hidden=768, heads=12, ffn=3072, seq=128), _ids_input),
}


def _randomize_defaults(model):
    """Replaces the constant initialisations (norm scale 1 / shift 0, BatchNorm running
    statistics 0 / 1, zero biases) with random values, so no layer is an identity."""
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, (nn.BatchNorm2d, nn.LayerNorm)):
                module.weight.uniform_(0.5, 1.5)
                module.bias.normal_(0.0, 0.1)
            if isinstance(module, nn.BatchNorm2d):
                module.running_mean.normal_(0.0, 0.1)
                module.running_var.uniform_(0.5, 1.5)
            for name, param in module.named_parameters(recurse=False):
                if "bias" in name and not isinstance(module, (nn.BatchNorm2d, nn.LayerNorm)):
                    param.normal_(0.0, 0.02)


def build(name):
    """Returns (model in eval mode, example input) for a model name, deterministically."""
    if name not in MODELS:
        raise KeyError(f"unknown model '{name}'; known: {', '.join(MODELS)}")
    builder, make_input = MODELS[name]
    torch.manual_seed(SEED)
    model = builder()
    _randomize_defaults(model)
    model.eval()
    return model, make_input()
