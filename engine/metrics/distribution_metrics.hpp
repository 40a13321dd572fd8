// Distances between a set of generated samples and a reference set, as
// MONAI 1.6.1 defines them (monai.metrics FIDMetric and MMDMetric), so that a
// number from medsynth compares with one from a MONAI script on the same
// features. Everything runs in float64 without autograd; inputs may be on any
// device. Bad shapes or too few samples are UsageErrors naming the input.
#pragma once

#include <ATen/core/Tensor.h>

namespace medsynth {

// Fréchet distance between Gaussians fitted to two feature sets [N, F] and
// [M, F] (N, M >= 2): |mu_a - mu_b|^2 + tr(S_a) + tr(S_b) - 2 tr sqrt(S_a S_b),
// covariances with N - 1. tr sqrt(S_a S_b) is taken as the sum of square
// roots of the eigenvalues of S_a^1/2 S_b S_a^1/2 (symmetric, so eigh is
// exact where MONAI's scipy sqrtm of the non-symmetric product drifts; they
// agree within 1e-6 relative on well-conditioned sets; see the parity test).
double frechet_distance(const at::Tensor& features_a, const at::Tensor& features_b);

// MONAI's MMD with the linear kernel: each sample flattened, then
// mean_{i!=j} <y_i, y_j> + mean_{i!=j} <p_i, p_j> - 2 mean_{i,j} <p_i, y_j>.
// reference [M, ...], generated [N, ...] with equal per-sample shapes, M, N >= 2
// (MONAI also requires M == N; the estimator does not).
double linear_mmd(const at::Tensor& reference, const at::Tensor& generated);

}  // namespace medsynth
