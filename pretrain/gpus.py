"""Which GPU this is, and its peak dense tensor-core throughput: the denominator of MFU.

"H100" names three products with different peaks: the SXM5 part (132 SMs, 700 W) reaches 989.5 dense
BF16 TFLOP/s, the PCIe card (114 SMs, 350 W) 756, the NVL card (132 SMs at lower clocks, 94 GB) 835.
Figures are NVIDIA's datasheet numbers without structured sparsity (datasheets print the sparse
figure, twice these: 1,979 for an H100 SXM); FP8 is twice BF16 on Hopper and Blackwell. A GPU not in the table gets no MFU
unless the caller passes its peak (``--peak-tflops``): a wrong denominator is worse than none.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class GpuSpec:
    sku: str
    bf16_tflops: float  # dense, per GPU
    fp8_tflops: float | None  # dense, per GPU; None: no FP8 tensor cores

    def peak_tflops(self, fp8: bool) -> float:
        return (self.fp8_tflops or self.bf16_tflops) if fp8 else self.bf16_tflops


# (name fragment, SM count or None, spec); the first match wins, so variants precede their family.
_TABLE: list[tuple[str, int | None, GpuSpec]] = [
    ("GH200", None, GpuSpec(sku="GH200", bf16_tflops=989.5, fp8_tflops=1979.0)),
    ("H100 NVL", None, GpuSpec(sku="H100 NVL", bf16_tflops=835.5, fp8_tflops=1670.5)),
    ("H100 PCIe", None, GpuSpec(sku="H100 PCIe", bf16_tflops=756.5, fp8_tflops=1513.0)),
    ("H100", 114, GpuSpec(sku="H100 PCIe", bf16_tflops=756.5, fp8_tflops=1513.0)),
    ("H100", 132, GpuSpec(sku="H100 SXM", bf16_tflops=989.5, fp8_tflops=1979.0)),
    ("H800 PCIe", None, GpuSpec(sku="H800 PCIe", bf16_tflops=756.5, fp8_tflops=1513.0)),
    ("H800", 132, GpuSpec(sku="H800 SXM", bf16_tflops=989.5, fp8_tflops=1979.0)),
    ("H200 NVL", None, GpuSpec(sku="H200 NVL", bf16_tflops=835.5, fp8_tflops=1670.5)),
    ("H200", 132, GpuSpec(sku="H200 SXM", bf16_tflops=989.5, fp8_tflops=1979.0)),
    ("H20", 78, GpuSpec(sku="H20", bf16_tflops=148.0, fp8_tflops=296.0)),
    ("GB200", None, GpuSpec(sku="GB200", bf16_tflops=2500.0, fp8_tflops=5000.0)),
    ("B200", None, GpuSpec(sku="B200", bf16_tflops=2250.0, fp8_tflops=4500.0)),
    ("B100", None, GpuSpec(sku="B100", bf16_tflops=1750.0, fp8_tflops=3500.0)),
    ("A100", None, GpuSpec(sku="A100", bf16_tflops=312.0, fp8_tflops=None)),
    ("L40S", None, GpuSpec(sku="L40S", bf16_tflops=362.05, fp8_tflops=733.0)),
]


def identify_gpu(name: str, sm_count: int) -> GpuSpec | None:
    """The product behind a CUDA device name and SM count (``torch.cuda.get_device_properties``), or None.

    The SM count separates parts that share a name: an "NVIDIA H100 80GB HBM3" is the SXM5 part
    (132 SMs), a PCIe card reports "H100 PCIe" and 114 SMs.
    """
    for fragment, sms, spec in _TABLE:
        if fragment in name and (sms is None or sms == sm_count):
            return spec
    return None


def current_gpu() -> GpuSpec | None:
    """The spec of CUDA device 0 of this process, or None (no CUDA, or a GPU not in the table)."""
    import torch

    if not torch.cuda.is_available():
        return None
    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    return identify_gpu(props.name, props.multi_processor_count)
