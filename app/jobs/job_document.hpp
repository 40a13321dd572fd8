// The job being edited in the console: the YAML text (kept as the user wrote
// it, comments included) and, when it is valid, the typed medsynth::JobSpec
// from medsynth_config. Every change re-validates through the config library
// (the same rules as `medsynth-engine validate`, data.path existence included)
// and lists the problems with their dotted field paths. Used by the ui's job
// editor (form + text views) and the launch dialog.
//
// Errors: load()/save() return false and fill *error naming the file;
// validation problems are values (issues()), never exceptions.
#pragma once

#include <QList>
#include <QObject>
#include <QString>
#include <QVariant>
#include <QVariantMap>
#include <memory>
#include <optional>

#include "config/job_spec.hpp"

namespace medsynth::app {

struct FieldIssue {
  QString path;     // dotted field path ("training.lr"); empty for a syntax error
  QString message;  // "must be > 0 (got -1)"
  int line = -1;    // 1-based line in yaml() when known (syntax errors, keys found in the text)

  QString to_string() const { return path.isEmpty() ? message : path + ": " + message; }
  bool operator==(const FieldIssue&) const = default;
};

struct JobTemplate;

class JobDocument : public QObject {
  Q_OBJECT

 public:
  explicit JobDocument(QObject* parent = nullptr);
  ~JobDocument() override;

  // Reads a .yaml/.yml/.json file (JSON is shown as it is; saving as .yaml
  // writes the resolved job as YAML when the text is JSON). False + *error
  // naming the file when it cannot be read; a file with job errors loads (see issues()).
  bool load(const QString& path, QString* error);
  // Atomic (QSaveFile). The format follows the suffix: .json writes JSON
  // (the resolved job when the text is YAML and valid), anything else YAML.
  bool save(const QString& path, QString* error);
  // A new, unsaved document from a template (path() empty, pending_reason() set
  // for a template the engine cannot train yet).
  void load_template(const JobTemplate& job_template);

  void set_yaml(const QString& text);
  QString yaml() const { return text_; }

  // The value at a dotted path ("training.batch_size"): what the text says,
  // else the default. int/double/bool/QString, or a QVariantList for arrays;
  // an invalid QVariant for an unknown path or a section.
  QVariant value(const QString& dotted_path) const;
  // Edits one field and keeps the rest of the text (comments, order, layout)
  // where it can; a document it cannot edit in place (JSON, flow mappings) is
  // re-emitted from its tree. An invalid QVariant removes the key (back to the default).
  // Returns false (and changes nothing) when the text is too broken to edit.
  bool set_value(const QString& dotted_path, const QVariant& value);

  QList<FieldIssue> issues() const { return issues_; }
  // The issues of one field (for an inline label next to its editor).
  QList<FieldIssue> issues_for(const QString& dotted_path) const;
  bool is_valid() const { return issues_.isEmpty(); }
  // The typed job when valid.
  const std::optional<JobSpec>& spec() const { return spec_; }
  // batch_size x world_size x gradient_accumulation_steps (from value(); 0 if unknown).
  int effective_batch(int world_size) const;
  // Can this be launched at all: valid, and not a pending template.
  bool is_launchable(QString* why = nullptr) const;
  QString pending_reason() const { return pending_reason_; }
  QString template_id() const { return template_id_; }

  QString path() const { return path_; }
  bool is_modified() const { return modified_; }
  // The text as `name: value` YAML values render ("[32, 32, 32]", "true", "1.0e-4").
  static QString yaml_scalar_text(const QVariant& value);

 signals:
  void changed();
  void issues_changed();
  void path_changed();
  void modified_changed(bool modified);

 private:
  void revalidate();
  bool looks_like_json() const;
  const std::optional<QVariantMap>& tree() const;
  void set_modified(bool modified);
  void set_path(const QString& path);

  QString text_;
  QString path_;
  QString template_id_;
  QString pending_reason_;
  bool modified_ = false;
  QList<FieldIssue> issues_;
  std::optional<JobSpec> spec_;
  // The parsed text for value(), built on first use after each change.
  mutable std::optional<QVariantMap> tree_;
  mutable bool tree_parsed_ = false;
};

}  // namespace medsynth::app
