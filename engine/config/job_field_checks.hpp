// The checks every job field gets from its row (job_fields.hpp): a number, or
// every entry of a list of numbers, within the row's range; a string among
// the row's choices. Called first by validate_job(); the rules that relate
// fields to each other follow it there. Internal to medsynth_config.
#pragma once

#include <vector>

#include "config/job_spec.hpp"
#include "core/error.hpp"

namespace medsynth {

// The whole job, except the fields whose options structs check themselves
// (model.autoencoder, scheduler, model.diffusion_unet, model.resnet, the
// PatchGAN's and the quantiser's fields of model.discriminator and model.vqgan).
void check_field_rows(const JobSpec& job, std::vector<FieldError>& errors);
// model.autoencoder alone: part of AutoencoderKLOptions::problems().
void check_autoencoder_rows(const AutoencoderKLOptions& autoencoder, std::vector<FieldError>& errors);
// The same for the other networks' options: part of their problems().
void check_discriminator_rows(const PatchDiscriminatorOptions& discriminator, std::vector<FieldError>& errors);
void check_vector_quantizer_rows(const VectorQuantizerOptions& quantizer, std::vector<FieldError>& errors);
void check_resnet_rows(const ResNet3dOptions& resnet, std::vector<FieldError>& errors);

}  // namespace medsynth
