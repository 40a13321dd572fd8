#include "diffusion/maisi_export.hpp"

#include <ATen/ATen.h>
#include <torch/nn/module.h>

#include <filesystem>

#include "config/job_loader.hpp"
#include "config/maisi_network_config.hpp"
#include "core/error.hpp"
#include "diffusion/latent_files.hpp"
#include "diffusion/ldm_task.hpp"
#include "models/autoencoder_kl.hpp"
#include "models/controlnet_maisi.hpp"
#include "models/diffusion_model_unet.hpp"
#include "contract/run_directory.hpp"
#include "state/tensor_file.hpp"
#include "state/training_state.hpp"
#include "volume/atomic_file.hpp"
#include "weights/torch_file_writer.hpp"

namespace fs = std::filesystem;

namespace medsynth {
namespace {

std::string existing(const std::string& path, const std::string& what) {
  if (!fs::is_regular_file(path)) throw UsageError("export-maisi: no " + what + " at " + path);
  return path;
}

// The module's weights from a checkpoint of `name` (its moving average when
// it holds one, as generate samples with), as a state dict in MONAI's names.
c10::impl::GenericDict state_dict_of(const std::shared_ptr<torch::nn::Module>& module, const std::string& name,
                                     const std::string& checkpoint) {
  restore_weights({{name, module}}, read_tensor_file(checkpoint), checkpoint, /*prefer_ema=*/true);
  c10::impl::GenericDict dict(c10::StringType::get(), c10::TensorType::get());
  for (const auto& p : module->named_parameters(/*recurse=*/true))
    dict.insert(p.key(), p.value().detach().contiguous());
  for (const auto& b : module->named_buffers(/*recurse=*/true)) dict.insert(b.key(), b.value().detach().contiguous());
  return dict;
}

void write_pt(const std::string& path, const c10::IValue& value, bool overwrite, MaisiExportResult& result) {
  if (fs::exists(path) && !overwrite) throw UsageError("export-maisi: " + path + " exists; --overwrite replaces it");
  const std::vector<char> bytes = torch_save_bytes(value);
  // Real MAISI UNets are gigabytes: a cut file must never take the name.
  write_string_atomically(path, std::string(bytes.begin(), bytes.end()));
  result.written.push_back(path);
}

}  // namespace

void MaisiExportOptions::validate() const {
  if (run.empty()) throw UsageError("RUN: name the run directory to export");
  if (out.empty()) throw UsageError("OUT: name the NV-Generate folder to write models/ into");
  if (const auto problem = maisi_model_problem(model); !problem.empty()) throw UsageError("--model: " + problem);
}

MaisiExportResult export_maisi(const MaisiExportOptions& o) {
  o.validate();
  const RunDirectory run{o.run};
  const JobSpec job = load_job_file(existing(run.job_file(), "job.yaml"));
  if (job.model.tensor_axes != "xyz" || !job.model.autoencoder.maisi)
    throw UsageError("export-maisi: " + run.job_file() +
                     " is not a run on MAISI networks (model.tensor_axes xyz, model.autoencoder.maisi); only those "
                     "are NV-Generate's");
  const std::string autoencoder_checkpoint =
      existing(job.ldm.autoencoder_checkpoint.empty() ? run.stage(k_autoencoder_stage).last_checkpoint()
                                                      : job.ldm.autoencoder_checkpoint,
               "autoencoder checkpoint");
  const std::string unet_checkpoint =
      existing(run.stage(k_diffusion_stage).last_checkpoint(), "diffusion UNet checkpoint");

  MaisiExportResult result;
  result.scale_factor = read_scale_factor(scale_factor_file_of(run, job.ldm.embedding_dir));
  const fs::path models = fs::path(o.out) / "models";
  fs::create_directories(models);

  write_pt((models / "autoencoder_v1.pt").string(),
           state_dict_of(AutoencoderKL(job.model.autoencoder).ptr(), "autoencoder", autoencoder_checkpoint),
           o.overwrite, result);

  // NV-Generate's diff_model_train.py saves these keys; its scripts read
  // unet_state_dict and scale_factor (a 0-d tensor there).
  c10::impl::GenericDict unet_file(c10::StringType::get(), c10::AnyType::get());
  unet_file.insert("unet_state_dict",
                   state_dict_of(DiffusionModelUNet(unet_options(job)).ptr(), "unet", unet_checkpoint));
  unet_file.insert("scale_factor", at::scalar_tensor(result.scale_factor, at::kFloat));
  unet_file.insert("num_train_timesteps", static_cast<std::int64_t>(job.scheduler.noise.num_train_timesteps));
  write_pt((models / ("diff_unet_3d_" + o.model + ".pt")).string(), unet_file, o.overwrite, result);

  const RunDirectory controlnet_stage = run.stage(k_controlnet_stage);
  if (fs::is_regular_file(controlnet_stage.last_checkpoint())) {
    const std::string config =
        fs::is_regular_file(controlnet_stage.network_config_file())
            ? controlnet_stage.network_config_file()
            : existing(job.ldm.controlnet_config, "ControlNet network config (ldm.controlnet_config)");
    const auto network = read_maisi_network_config(config);
    if (!network.controlnet) throw DataError(config, "has no controlnet_def");
    c10::impl::GenericDict controlnet_file(c10::StringType::get(), c10::AnyType::get());
    controlnet_file.insert("controlnet_state_dict", state_dict_of(ControlNetMaisi(*network.controlnet).ptr(),
                                                                  "controlnet", controlnet_stage.last_checkpoint()));
    write_pt((models / ("controlnet_3d_" + o.model + ".pt")).string(), controlnet_file, o.overwrite, result);
  }
  return result;
}

}  // namespace medsynth
