// `medsynth-engine evaluate`: every number that judges a set of generated
// volumes against a reference set, computed the same way on every run
// (docs/evaluation.md is the protocol). Volumes are read in HU; intensity
// checks use them as they are; the distribution metrics use them clipped to
// `window` and scaled to [0, 1] (MAISI's ScaleIntensityRange), resampled
// (trilinear) to one evaluation grid.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "eval/intensity_checks.hpp"
#include "eval/memorization_audit.hpp"
#include "metrics/image_metrics.hpp"

namespace medsynth {

class DistContext;

struct EvaluationOptions {
  std::vector<std::string> generated;        // volume files (NIfTI) or DICOM series folders
  std::vector<std::string> reference;
  std::array<double, 2> window{-1000.0, 1000.0};     // HU mapped to [0, 1], clipped
  std::array<std::int64_t, 3> grid{0, 0, 0};         // [Z, Y, X]; zeros: the first generated volume's
  HuHistogramOptions histogram;                      // also CT's valid range
  // MS-SSIM: MONAI's defaults when the grid allows them, else the largest
  // window (11, 9, 7, 5, 3) and number of scales (5..2, MONAI's weights
  // renormalised) that fit; the report names what was used.
  std::string feature_network;                       // weights (MedicalNet, RadImageNet) or TorchScript; empty: no FID
  bool trust_torchscript = false;                    // load feature_network as TorchScript (a program) if it is not weights
  std::string feature_mode = "2.5d";                 // "2.5d" (slices of 3 planes) or "3d"
  double center_slices_ratio = 1.0;                  // 2.5d: the middle share of each axis
  int every_k_slices = 1;                            // 2.5d: every k-th slice
  // Memorization audit: against these training volumes (none: no audit),
  // with the run's autoencoder as `encoder` when there is one.
  std::vector<std::string> training;
  double memorization_threshold = 0.2;
  LatentEncoder encoder;
  // With a process group, the pairwise MS-SSIM, the audit's distances and the
  // feature rows are spread over its ranks (every rank gets the whole report).
  DistContext* dist = nullptr;
  // Called as the work moves: each volume read, then each metric group done
  // ("reading generated volumes" 3 of 8, "metrics" 2 of 5). May be empty.
  std::function<void(std::string_view phase, std::int64_t done, std::int64_t total)> on_progress;
  void validate() const;                             // UsageError naming the option
};

struct EvaluationRow {
  std::string metric;   // "fid_2.5d_xy", "ms_ssim_diversity", ...
  double value = 0.0;   // NaN: not computed (see note)
  std::string note;     // what it compares, the configuration, or why not computed
};

struct EvaluationReport {
  std::size_t generated = 0, reference = 0;
  std::array<std::int64_t, 3> grid{0, 0, 0};
  std::vector<EvaluationRow> rows;
  // Per generated volume: mean MS-SSIM to the reference set (fidelity).
  std::vector<std::pair<std::string, double>> per_volume_fidelity;
  // The pooled HU histograms (shares per bin of options.histogram's bins).
  std::vector<double> hu_histogram_generated, hu_histogram_reference;
  bool audited = false;
  MemorizationReport memorization;
};

EvaluationReport evaluate_volumes(const EvaluationOptions& options);

// The MS-SSIM configuration used for a grid: MONAI's defaults if they fit.
MsSsimOptions ms_ssim_options_for(const std::array<std::int64_t, 3>& grid);

// A fixed-width text table of the rows (what `evaluate` prints).
std::string format_report(const EvaluationReport& report);

}  // namespace medsynth
