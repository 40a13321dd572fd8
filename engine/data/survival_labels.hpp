// The survival labels of the 3D ResNet survival task (seed 004, MACE
// prediction): per volume the follow-up time, whether the event happened
// (1) or the patient was censored (0), and optional clinical covariates.
//  - From a CSV manifest (data.source: csv): columns image, time, event and
//    the covariate columns named in data.covariates. Errors name the file and
//    line: a missing column, a non-numeric or negative time, an event that is
//    not 0/1, a non-numeric covariate (the image column is checked by
//    read_volume_manifest: missing file, not NIfTI/DICOM).
//  - Simulated (data.source: simulated): each phantom gets a lesion whose
//    radius sets its hazard (log-hazard = beta x standardised radius), the
//    event time is exponential under that hazard and censoring is uniform, so
//    the risk is really in the image and a C-index well above 0.5 is reachable.
// Used by the survival task's data (survival_data.hpp) and by tests.
#pragma once

#include <ATen/core/Tensor.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "data/volume_listing.hpp"

namespace medsynth {

struct SurvivalLabel {
  double time = 0;                  // follow-up (the seed: days or months; any unit)
  int event = 0;                    // 1: event observed, 0: censored
  std::vector<double> covariates;   // in data.covariates order
};

// Labels of manifest rows (read_volume_manifest entries, which keep the row cells).
std::vector<SurvivalLabel> survival_labels_from_manifest(const std::string& csv_path, const std::vector<VolumeEntry>& entries,
                                                         const std::vector<std::string>& covariates);

struct SimulatedLesion {
  std::array<double, 3> center_mm{};  // LPS, relative to the volume centre
  double radius_mm = 0;
  double hu = 400;                    // contrast-enhancing lesion
};

struct SurvivalSimulation {
  double radius_min_mm = 12, radius_max_mm = 40;
  double beta = 2.0;                  // log-hazard per standard deviation of the radius
  double base_hazard = 0.05;          // events per time unit at the mean radius
  double censor_max = 40.0;           // censoring time ~ U(0, censor_max)
};

struct SimulatedSurvival {
  SimulatedLesion lesion;
  SurvivalLabel label;
};

// Lesion and label of the phantom with `seed` (deterministic, independent of the phantom's own draws).
SimulatedSurvival simulate_survival(std::uint64_t seed, const std::array<double, 3>& field_of_view_mm, const SurvivalSimulation& options = {});

// Paints the lesion into a normalised CT tensor [1, 1, Z, Y, X] (value of
// lesion.hu in the ct window [lo, hi]); spacing is (x, y, z) mm.
void paint_lesion(at::Tensor& image, const std::array<double, 3>& spacing_mm, const SimulatedLesion& lesion,
                  const std::array<double, 2>& ct_window);

}  // namespace medsynth
