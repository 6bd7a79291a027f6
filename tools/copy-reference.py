"""Reference device-to-device copy bandwidth through PyTorch on the same GPU,
for comparison with gpuchar's memory.copy (bytes read + written, 1 GiB
buffers of random data, CUDA events, median of 50 copies after warm-up)."""
import statistics
import torch

n = 1 << 28  # float32 elements: 1 GiB
src = torch.rand(n, device="cuda")
dst = torch.empty_like(src)
for _ in range(5):
    dst.copy_(src)
times = []
for _ in range(50):
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    dst.copy_(src)
    b.record()
    b.synchronize()
    times.append(a.elapsed_time(b) / 1e3)
assert torch.equal(dst, src)
t = statistics.median(times)
print(f"torch copy_: {2 * 4 * n / t / 1e12:.3f} TB/s (median of 50, min time {min(times)*1e3:.3f} ms)")
