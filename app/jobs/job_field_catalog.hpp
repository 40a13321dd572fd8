// The fields the job editor shows, grouped like the seed workflows group their
// options ("Training", "Data", "Parallel computing", "Model", "Checkpoints &
// output"). Paths, kinds and defaults come from medsynth_config's schema
// (visit_job); labels, units, help, ranges, choices and groups from its field
// rows (config/job_fields.hpp), the ones the engine validates with: the form
// cannot drift from what the engine reads. Used by the ui's job editor form.
//
// The launcher's own options (processes per node, restarts) are not job
// fields: they are LaunchOptions, shown in the "Parallel computing" group.
#pragma once

#include <QList>
#include <QString>
#include <QStringList>
#include <QVariant>
#include <optional>

namespace medsynth::app {

struct JobField {
  QString path;     // "training.batch_size"
  QString label;    // "Batch size per process"
  QString group;    // one of job_field_groups()
  // "int", "double", "bool", "string", "choice", "path", and for arrays
  // "int_list", "double_list", "bool_list", "string_list" (list_length() values, 0 = any).
  QString kind;
  QStringList choices;  // for "choice"
  QString help;
  QString unit;  // "mm", "HU", ...; already in the label
  // The values the engine accepts (every entry's, for a list); an open end is
  // the type's limit. minimum == maximum == 0: the field has no range.
  double minimum = 0.0;
  double maximum = 0.0;
  bool minimum_exclusive = false;
  bool maximum_exclusive = false;
  int list_length = 0;   // fixed length of an array field; 0 = variable
  bool nullable = false; // may be null (data.target_spacing)
  bool advanced = false; // folded away by default in the form
  QVariant default_value;
};

// The group names in display order.
QStringList job_field_groups();
// Every job field, in file order.
QList<JobField> job_field_catalog();
std::optional<JobField> find_job_field(const QString& path);

// Whether a job of `task` reads the field at `path` (an ldm job reads
// model.vqgan only with ldm.first_stage vqgan): the form shows only these
// (issue 38: the ldm Model tab offered VQ-GAN and ResNet fields). The rule is
// the engine's task catalog (config/task_catalog.hpp).
bool job_field_applies(const QString& path, const QString& task, const QString& first_stage);
// The stage of a pipeline job a field applies to ("diffusion stage",
// "autoencoder stage", "every training stage"); "" for a trainer task.
QString job_field_stage(const QString& path, const QString& task);

// How a job is run (the launcher's command line), next to the job's own fields.
struct LaunchOptions {
  int nproc_per_node = 1;  // processes on this node (torchrun --nproc_per_node)
  int max_restarts = 0;    // restart all workers from the last checkpoint up to this often

  QStringList validate() const;
};

// The LaunchOptions as form fields (paths "launch.nproc_per_node", "launch.max_restarts").
QList<JobField> launch_option_catalog();

}  // namespace medsynth::app
