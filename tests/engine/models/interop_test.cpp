// The way back to Python (docs/interop.md): a checkpoint medsynth wrote
// (data/interop_medsynth_autoencoder.safetensors, from
// data/interop_autoencoder.yaml) loads into MONAI 1.6.1's AutoencoderKL once
// "model.autoencoder." is cut from its names (strict=True, in
// data/make_interop_fixture.py), and MONAI's reconstruction of a fixed input
// equals what medsynth computes from the same file. If a module were renamed,
// the fixture script would fail to load it; if a layer computed differently,
// this test would fail.
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <string>

#include "config/autoencoder_kl_options.hpp"
#include "config/job_loader.hpp"
#include "engine/models/monai_fixture.hpp"
#include "models/autoencoder_kl.hpp"
#include "state/tensor_file.hpp"
#include "state/training_state.hpp"

namespace medsynth {
namespace {

const std::string k_data = MEDSYNTH_MODELS_TEST_DATA;

TEST(Interop, MonaiReconstructsWithAMedsynthCheckpointAsMedsynthDoes) {
  const std::string path = k_data + "/interop_medsynth_autoencoder.safetensors";
  const TensorFile checkpoint = read_tensor_file(path);
  // The network the checkpoint was trained as: its embedded job.
  const JobSpec job = load_job_text(checkpoint.metadata.at("job"), path);
  AutoencoderKL autoencoder(AutoencoderKLOptions::from_spec(job.model.autoencoder, job.loss));
  restore_weights({{"autoencoder", autoencoder.ptr()}}, checkpoint, path);
  autoencoder->eval();

  const auto monai = test::read_monai_fixture(k_data, "interop_monai_reconstruction");
  at::NoGradGuard no_grad;
  const at::Tensor x = monai.at("io.x");
  const auto [z_mu, z_log_var] = autoencoder->encode(x);
  test::expect_close(z_mu, monai.at("io.z_mu"), "z_mu");
  test::expect_close(autoencoder->reconstruct(x), monai.at("io.reconstruction"), "reconstruction");
}

}  // namespace
}  // namespace medsynth
