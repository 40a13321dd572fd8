// The built-in templates: metadata here, YAML from the Qt resources
// (resources/resources.qrc, compiled into medsynth_app).
#include "app/jobs/job_templates.hpp"

#include <QFile>

// Resources in a static library must be registered by hand (outside any namespace).
static void init_medsynth_resources() { Q_INIT_RESOURCE(resources); }

namespace medsynth::app {

namespace {

QString read_resource(const QString& path) {
  static const bool initialized = [] {
    init_medsynth_resources();
    return true;
  }();
  Q_UNUSED(initialized);
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) return {};  // a build without the resource: the test catches it
  return QString::fromUtf8(file.readAll());
}

JobTemplate make(const char* id, const char* title, const char* workflow, const char* description, const char* resource,
                 const char* pending_reason) {
  JobTemplate t;
  t.id = QString::fromLatin1(id);
  t.title = QString::fromUtf8(title);
  t.workflow = QString::fromUtf8(workflow);
  t.description = QString::fromUtf8(description);
  t.engine_supported = pending_reason == nullptr;
  t.pending_reason = pending_reason ? QString::fromUtf8(pending_reason) : QString();
  t.yaml = read_resource(QStringLiteral(":/medsynth/") + QString::fromLatin1(resource));
  return t;
}

}  // namespace

QList<JobTemplate> builtin_templates() {
  static const QList<JobTemplate> templates = {
      make("kl-autoencoder-amp", "3D KL autoencoder with AMP (CPU quick start)",
           "Multi-GPU 3D autoencoder training (AMP, accumulation, NaN guard, clipping)",
           "A MAISI-style KL autoencoder (4x compression per axis, 4 latent channels) trained on simulated CT "
           "phantoms with bf16 mixed precision; runs on a CPU in minutes.",
           "jobs/quickstart.yaml", nullptr),
      make("maisi-autoencoder", "MAISI autoencoder (full size, GPUs)", "MAISI autoencoder training",
           "MAISI's 3D KL autoencoder at its published size and settings, for GPUs; train on your CT volumes "
           "with a data folder.",
           "jobs/maisi-autoencoder.yaml", nullptr),
      make("maisi3d-rflow", "MAISI 3D latent diffusion (rectified flow)",
           "MAISI 3D diffusion - parallel computing guide",
           "The recommended MAISI diffusion model: 33x faster inference than DDPM; one generated image per GPU "
           "(image_seed{S}_rank{R}.nii.gz).",
           "jobs/maisi3d-rflow.yaml", nullptr),
      make("maisi3d-ddpm", "MAISI 3D latent diffusion (DDPM, legacy)", "MAISI 3D diffusion - parallel computing guide",
           "The DDPM version of MAISI's diffusion model (1000 scheduler steps; without MAISI's body-region inputs).",
           "jobs/maisi3d-ddpm.yaml", nullptr),
      make("fast-ddpm", "Fast-DDPM on 3D BraTS MRI", "Fast-DDPM 3D BraTS - multi-GPU guide",
           "10 timesteps for training and sampling (here in latent space); effective batch 1 x 4 GPUs x 4 accumulation "
           "= 16.",
           "jobs/fast-ddpm.yaml", nullptr),
      make("fast-ddpm-brats", "Fast-DDPM 3D BraTS: T1/T1c/T2 \u2192 FLAIR", "Fast-DDPM 3D BraTS - multi-GPU guide",
           "The seed's image-to-image task: FLAIR generated from the other three contrasts of each case, 10 "
           "timesteps; reads BraTS 2021/2023 case folders or a datalist JSON; validation PSNR/SSIM of the "
           "translated FLAIR against the real one.",
           "jobs/fast-ddpm-brats.yaml", nullptr),
      make("ldm-tiny", "Latent diffusion pipeline (CPU, minutes)", "MAISI 3D diffusion - parallel computing guide",
           "MAISI's whole pipeline on simulated phantoms: autoencoder, encode, rectified-flow UNet, one generated "
           "CT volume per process (image_seed42_rank0.nii.gz, ...). About 3 minutes on 2 CPU cores.",
           "jobs/ldm-tiny.yaml", nullptr),
      make("ldm-vqgan-tiny", "Diffusion on VQ-GAN codes (CPU, minutes)", "VQ-GAN 4-GPU distributed training",
           "The VQ-GAN seed's second stage: the patch VQ-GAN, then a diffusion UNet on its codes, decoded through "
           "its codebook; one generated CT volume per process. Name a trained VQ-GAN in ldm.autoencoder_checkpoint "
           "to skip the first stage.",
           "jobs/ldm-vqgan-tiny.yaml", nullptr),
      make("vqgan-patches", "VQ-GAN on 128^3 patches", "VQ-GAN 4-GPU distributed training",
           "A VQ-GAN trained on 128^3 patches of CTPA volumes, one patient per GPU; top-3 checkpoints by PSNR "
           "(vqgan-patches-epochXX-psnrYY.YY).",
           "jobs/vqgan-ctpa-patches.yaml", nullptr),
      make("vqgan-tiny", "Patch VQ-GAN (CPU, minutes)", "VQ-GAN 4-GPU distributed training",
           "The patch-based VQ-GAN on 48^3 phantoms cut into 16^3 grid patches, each process on its own volumes; "
           "validates PSNR/SSIM on whole stitched volumes.",
           "jobs/vqgan-tiny.yaml", nullptr),
      make("resnet-survival", "3D ResNet survival (MACE prediction)", "Survival model - multi-GPU guide",
           "A ResNet-50 survival model (Cox loss, C-index) on volumes listed in a CSV manifest, with MONAI's "
           "SmartCache and AMP; risk scores per patient in risk_scores.csv.",
           "jobs/resnet-survival.yaml", nullptr),
      make("survival-tiny", "Survival model (CPU, minutes)", "Survival model - multi-GPU guide",
           "A ResNet-10 survival model on simulated CT phantoms whose lesion size sets the hazard; reaches a "
           "validation C-index above 0.7 in under a minute.",
           "jobs/survival-tiny.yaml", nullptr),
  };
  return templates;
}

std::optional<JobTemplate> find_template(const QString& id) {
  for (const auto& t : builtin_templates())
    if (t.id == id) return t;
  return std::nullopt;
}

}  // namespace medsynth::app
