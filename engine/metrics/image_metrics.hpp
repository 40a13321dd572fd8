// Image-quality metrics for validation (val/psnr, val/ssim): PSNR and 3D SSIM
// as MONAI's PSNRMetric and SSIMMetric (Gaussian kernel) define them. Called
// by the autoencoder task's validation and by the trainer's best-checkpoint
// bookkeeping. Every function runs without autograd and in float64, whatever
// the inputs' dtype and device (fp32 SSIM loses digits to mu_xx - mu_x^2).
// Inputs must have identical shapes; otherwise UsageError.
#pragma once

#include <ATen/core/Tensor.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace medsynth {

// 10 * log10(data_range^2 / MSE) over all elements; +inf when x == y, NaN if
// an input holds NaN.
double psnr(const at::Tensor& x, const at::Tensor& y, double data_range = 1.0);
// One PSNR per entry of dimension 0 (MSE over the rest), as MONAI's PSNRMetric.
std::vector<double> psnr_per_sample(const at::Tensor& x, const at::Tensor& y, double data_range = 1.0);

struct SsimOptions {
  double data_range = 1.0;
  int kernel_size = 11;   // odd
  double sigma = 1.5;     // of the Gaussian window, in voxels
  double k1 = 0.01;
  double k2 = 0.03;
  void validate() const;  // UsageError naming the field
};

// Mean SSIM over the valid region (no padding) of a separable 3D Gaussian
// window, each channel on its own, averaged over channels and samples.
// x, y: [D, H, W], [C, D, H, W] or [B, C, D, H, W].
// Small volumes: an axis shorter than kernel_size gets the largest odd
// window that fits it (the Gaussian of the same sigma truncated there and
// renormalised), so a 64x64x1 slab is scored by 2D SSIM instead of failing.
double ssim3d(const at::Tensor& x, const at::Tensor& y, const SsimOptions& options = {});
// One SSIM per sample of [B, C, D, H, W] inputs.
std::vector<double> ssim3d_per_sample(const at::Tensor& x, const at::Tensor& y, const SsimOptions& options = {});

// MS-SSIM as MONAI's MultiScaleSSIMMetric computes it: at each of
// weights.size() scales (2x average pooling between them) the mean
// contrast-structure term, and at the last the mean SSIM, each clamped at 0
// and raised to its weight; their product per sample. The window is
// kernel_size on every axis, so each axis must satisfy MONAI's rule
// size / (scales - 1)^2 > kernel_size - 1 (UsageError naming the sizes
// otherwise; default weights and kernel 11 need 176 voxels per axis).
struct MsSsimOptions {
  SsimOptions ssim;
  std::vector<double> weights{0.0448, 0.2856, 0.3001, 0.2363, 0.1333};
  void validate() const;  // UsageError naming the field
};
// x, y: [B, C, D, H, W]; one value per sample.
std::vector<double> ms_ssim3d_per_sample(const at::Tensor& x, const at::Tensor& y, const MsSsimOptions& options = {});

// Where SSIM is lost, and to which of its factors: the SSIM map split by the
// reference's local (window-weighted) mean. SSIM's luminance factor with
// C1 = (0.01 data_range)^2 is very sensitive near zero: in CT under MAISI's
// window, air sits at 0 and a bias of 20 HU there costs far more SSIM than
// the same bias in soft tissue (docs/performance.md, "The quick start").
struct IntensityBand {
  std::string name;
  double lo = 0.0, hi = 0.0;  // the reference's local mean in [lo, hi), data units
};
struct BandSsim {
  std::string name;
  double fraction = 0.0;            // of the SSIM map's voxels
  double ssim = 0.0;                // means over the band; NaN for an empty band
  double luminance = 0.0;
  double contrast_structure = 0.0;
  double mean_offset = 0.0;         // mean of mu_x - mu_y: a bias of x against y shows here
};
// x (e.g. a reconstruction) against the reference y, with ssim3d's window;
// samples and channels pooled. Bands may overlap or leave gaps.
std::vector<BandSsim> ssim3d_by_band(const at::Tensor& x, const at::Tensor& y, const std::vector<IntensityBand>& bands,
                                     const SsimOptions& options = {});

// The window ssim3d uses for a volume of size (d, h, w), per axis.
std::array<std::int64_t, 3> ssim_window(const std::array<std::int64_t, 3>& size, const SsimOptions& options);

}  // namespace medsynth
