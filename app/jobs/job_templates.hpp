// Ready-made jobs for the seed workflows (MAISI autoencoder and diffusion,
// Fast-DDPM, VQGAN on patches, ResNet survival), shown by the ui's "new job"
// dialog. Only the autoencoder ones can be trained by this engine; the others
// carry the seeds' settings in our job-file vocabulary so far as it exists,
// are marked engine_supported = false with the reason, and can never be
// launched (JobDocument::is_launchable, LaunchRequest::validate).
// The YAML is compiled into medsynth_app as Qt resources: the shipped job
// files of resources/jobs/.
#pragma once

#include <QList>
#include <QString>
#include <optional>

namespace medsynth::app {

struct JobTemplate {
  QString id;           // "maisi3d-rflow"
  QString title;        // "MAISI 3D latent diffusion (rectified flow)"
  QString workflow;     // the seed it comes from
  QString description;
  bool engine_supported = false;
  QString pending_reason;  // why it cannot run yet; empty when supported
  QString yaml;
};

QList<JobTemplate> builtin_templates();
std::optional<JobTemplate> find_template(const QString& id);

}  // namespace medsynth::app
