"""Is Transformer Engine usable? Decided once, when ``pretrain`` is imported, before megatron-core is.

The name ``transformer_engine`` alone proves nothing: the ``transformer-engine`` meta-wheel installs a
package with no ``pytorch`` module, and a build for another CUDA fails loading its library. megatron-core
0.16.1 treats an importable name as "TE present" and then dies at its own import with a raw
``ModuleNotFoundError`` (``fp8_utils`` imports ``transformer_engine.pytorch``). So only a working
``transformer_engine.pytorch`` counts, and a half-installed TE is hidden from megatron-core (a ``None``
entry in ``sys.modules`` makes every ``import transformer_engine`` raise ImportError): BF16 then runs on
megatron's TE-free path, and FP8 is refused with this module's reason (``pretrain.parallel.check_precision``).
"""

from __future__ import annotations

import importlib.util
import sys


def probe_transformer_engine() -> str | None:
    """None when ``import transformer_engine.pytorch`` works, else why it does not."""
    if importlib.util.find_spec("transformer_engine") is None:
        return "transformer_engine is not installed"
    try:
        import transformer_engine.pytorch  # noqa: F401
    except Exception as error:  # noqa: BLE001 - a broken build raises OSError/RuntimeError, not only ImportError
        return f"`import transformer_engine.pytorch` fails ({type(error).__name__}: {error})"
    return None


def hide_transformer_engine() -> None:
    """Make ``import transformer_engine`` (and its submodules) raise ImportError in this process."""
    for name in [n for n in sys.modules if n == "transformer_engine" or n.startswith("transformer_engine.")]:
        del sys.modules[name]
    sys.modules["transformer_engine"] = None


TE_UNAVAILABLE = probe_transformer_engine()
if TE_UNAVAILABLE is not None and "megatron.core" not in sys.modules:
    hide_transformer_engine()
