// Options of the VQ-GAN's vector quantiser (models/vector_quantizer.hpp)
// under the job's names: the job's model.vqgan section is these plus the
// GAN schedule (job_spec.hpp, VqganSpec), so the file's fields and the
// quantiser's options are one struct. Torch-free, in medsynth_config:
// problems() is the one set of rules, run by validate_job() and by the
// VectorQuantizer constructor through validate().
#pragma once

#include <string>
#include <vector>

#include "core/error.hpp"

namespace medsynth {

struct VectorQuantizerOptions {
  int num_embeddings = 512;              // codebook size (the seed's n_codes)
  int embedding_dim = 8;                 // code dimension
  double commitment_cost = 0.25;         // beta of the commitment loss
  std::string codebook_update = "ema";   // ema | straight_through (a codebook loss instead)
  double ema_decay = 0.99;               // EMA decay of the codes' counts and sums
  double dead_code_threshold = 1e-3;     // restart codes whose usage share falls below this (0: never)
  double epsilon = 1e-5;                 // Laplace smoothing of the counts (not a job field)

  bool ema() const { return codebook_update == "ema"; }
  // Every problem, named by its job path ("model.vqgan.ema_decay"): the
  // field rows' ranges and choices (job_fields.cpp), then the rules they cannot say.
  std::vector<FieldError> problems() const;
  // Throws UsageError listing problems().
  void validate() const;

  bool operator==(const VectorQuantizerOptions&) const = default;
};

}  // namespace medsynth
