// The provenance a volume file carries (generation_provenance.hpp), read from
// its NIfTI comment extensions, and the one-line summary that DICOM export
// puts into ImageComments/DerivationDescription. Called by the engine's
// export-dicom verb and by the console's DICOM export (app/export/), so both
// write the same line. No LibTorch here (library medsynth_provenance).
#pragma once

#include <optional>
#include <string>

#include "contract/generation_provenance.hpp"

namespace medsynth {

// The medsynth provenance of a single-file NIfTI (.nii, .nii.gz); nullopt for
// other files and folders (NRRD, MetaImage and DICOM carry none) and for a
// NIfTI without one. DataError naming the file for a malformed header,
// extension list or provenance.
std::optional<GenerationProvenance> read_volume_provenance(const std::string& file);

// "seed S, unet checkpoint sha256 H, autoencoder checkpoint sha256 H,
// [controlnet checkpoint sha256 H, label sha256 H,] SCHEDULER N steps,
// medsynth VERSION".
std::string provenance_summary(const GenerationProvenance& p);

}  // namespace medsynth
