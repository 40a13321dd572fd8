// The editor's field catalog against the config library: every schema field
// is there with a label, help and a known group; every choice and every
// default is accepted; ranges refuse what the config library refuses.
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include "app/jobs/job_document.hpp"
#include "app/jobs/job_field_catalog.hpp"
#include "app/jobs/job_field_relations.hpp"
#include "config/job_fields.hpp"
#include "config/job_loader.hpp"
#include "config/job_schema.hpp"

using namespace medsynth::app;

namespace {

// Every leaf path of the schema, walked independently of the catalog.
void leaf_paths(const medsynth::SchemaNode& node, const QString& prefix, QStringList& out) {
  for (const auto& child : node.children) {
    const QString path = prefix.isEmpty() ? QString::fromStdString(child.name) : prefix + "." + QString::fromStdString(child.name);
    if (child.is_section)
      leaf_paths(child, path, out);
    else
      out << path;
  }
}

// `others`: overrides the value needs beside it.
bool accepted_with(const QString& path, const QVariant& value, std::vector<std::string> others) {
  try {
    others.push_back((path + "=" + JobDocument::yaml_scalar_text(value)).toStdString());
    medsynth::load_job_text_with_overrides("name: t\n", others, "job.yaml");
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

bool accepted(const QString& path, const QVariant& value) { return accepted_with(path, value, {}); }

}  // namespace

class JobFieldCatalogTest : public QObject {
  Q_OBJECT

 private slots:
  void covers_the_schema() {
    QStringList schema;
    leaf_paths(medsynth::job_schema(), {}, schema);
    QStringList catalog;
    for (const auto& f : job_field_catalog()) catalog << f.path;
    QCOMPARE(catalog, schema);  // same fields, same (file) order
  }

  void every_field_is_presented() {
    const QStringList groups = job_field_groups();
    QCOMPARE(groups.size(), 6);
    QSet<QString> used;
    for (const auto& f : job_field_catalog()) {
      QVERIFY2(!f.label.isEmpty() && !f.help.isEmpty(), qPrintable(f.path));
      QVERIFY2(f.help != QLatin1String("See docs/job-file.md."), qPrintable(f.path + ": no help written for it"));
      QVERIFY2(groups.contains(f.group), qPrintable(f.path + ": " + f.group));
      used.insert(f.group);
      static const QStringList kinds{"int",  "double",   "bool",        "string",    "choice",
                                     "path", "int_list", "double_list", "bool_list", "string_list"};
      QVERIFY2(kinds.contains(f.kind), qPrintable(f.path + ": " + f.kind));
    }
    QCOMPARE(used.size(), 6);
    QCOMPARE(find_job_field(QStringLiteral("training.batch_size"))->group, QStringLiteral("Training"));
    QCOMPARE(find_job_field(QStringLiteral("distributed.backend"))->group, QStringLiteral("Parallel computing"));
    QCOMPARE(find_job_field(QStringLiteral("data.path"))->kind, QStringLiteral("path"));
    QCOMPARE(find_job_field(QStringLiteral("data.patch_size"))->list_length, 3);
    QVERIFY(find_job_field(QStringLiteral("data.target_spacing"))->nullable);
    QVERIFY(!find_job_field(QStringLiteral("training.nope")));
  }

  void defaults_and_choices_are_accepted_by_the_config_library() {
    // Task translation reads cases of several contrasts: a folder of case folders.
    QTemporaryDir cases;
    QVERIFY(QDir().mkpath(cases.filePath("c1")));
    QFile file(cases.filePath("c1/c1-t1n.nii.gz"));
    QVERIFY(file.open(QIODevice::WriteOnly));
    for (const auto& f : job_field_catalog()) {
      if (f.default_value.isValid() && f.path != QLatin1String("data.path") && f.path != QLatin1String("checkpoint.resume"))
        QVERIFY2(accepted(f.path, f.default_value), qPrintable(f.path));
      for (const auto& choice : f.choices) {
        if (f.path == QLatin1String("data.source") && choice != QLatin1String("simulated")) continue;  // needs data.path
        // NV-Generate's layout needs xyz (MAISI) networks: checked with them.
        if (f.path == QLatin1String("ldm.embedding_layout") && choice == QLatin1String("maisi")) {
          QVERIFY(accepted_with(f.path, choice, {"model.tensor_axes=xyz"}));
          QVERIFY(!accepted(f.path, choice));
          continue;
        }
        if (f.path == QLatin1String("task") && choice == QLatin1String("translation")) {
          QVERIFY(accepted_with(f.path, choice,
                                {"data.source=folder", "data.path=" + cases.path().toStdString(), "data.channels=[t1n]",
                                 "data.target=t2f"}));
          QVERIFY(!accepted(f.path, choice));
          continue;
        }
        QVERIFY2(accepted(f.path, choice), qPrintable(f.path + "=" + choice));
      }
      if (f.kind == QLatin1String("choice")) QVERIFY2(!accepted(f.path, QStringLiteral("zzz")), qPrintable(f.path));
    }
  }

  void numeric_ranges_agree_with_validation() {
    // The form's bounds are inside what the library accepts, and just below
    // the lower bound of a few well-known fields is refused by both.
    for (const char* path : {"training.batch_size", "training.gradient_accumulation_steps", "data.num_train", "checkpoint.keep_best"}) {
      const auto f = find_job_field(QString::fromLatin1(path));
      QVERIFY(f);
      QVERIFY2(accepted(f->path, static_cast<qint64>(f->minimum)), path);
      QVERIFY2(!accepted(f->path, static_cast<qint64>(f->minimum) - 1), path);
    }
    QVERIFY(!accepted(QStringLiteral("training.lr"), -1.0));
  }

  // Label, help and range are the engine's field rows, not a copy of them.
  void presentation_comes_from_the_field_rows() {
    for (const auto& f : job_field_catalog()) {
      const medsynth::JobFieldRow* row = medsynth::find_job_field_row(f.path.toStdString());
      QVERIFY2(row, qPrintable(f.path));
      QCOMPARE(f.help, QString::fromStdString(row->help));
      QVERIFY2(f.label.startsWith(QString::fromStdString(row->label)), qPrintable(f.path));
      if (row->range.min) QCOMPARE(f.minimum, *row->range.min);
      if (row->range.max) QCOMPARE(f.maximum, *row->range.max);
    }
    QCOMPARE(find_job_field(QStringLiteral("data.phantom_spacing"))->label, QStringLiteral("Phantom spacing (mm)"));
    QVERIFY(find_job_field(QStringLiteral("training.lr"))->minimum_exclusive);
  }

  void launch_options() {
    const auto fields = launch_option_catalog();
    QCOMPARE(fields.size(), 2);
    QCOMPARE(fields[0].path, QStringLiteral("launch.nproc_per_node"));
    QCOMPARE(fields[0].group, QStringLiteral("Parallel computing"));
    LaunchOptions o;
    QVERIFY(o.validate().isEmpty());
    o.nproc_per_node = 0;
    o.max_restarts = -1;
    QCOMPARE(o.validate().size(), 2);
    QVERIFY(o.validate().front().startsWith(QStringLiteral("nproc_per_node")));
  }

  // The quick start sets epochs 2 (a default) and max_steps 1500: the form must
  // say that the steps end the run, and stop saying it once max_steps is 0.
  void epochs_are_unused_while_max_steps_decides() {
    JobDocument doc;
    doc.set_yaml(QStringLiteral("name: t\ntraining:\n  epochs: 2\n  max_steps: 1500\n"));
    const JobValueLookup value_of = [&](const QString& p) { return doc.value(p); };
    const QString reason = unused_field_reason(QStringLiteral("training.epochs"), value_of);
    QVERIFY2(reason.contains(QStringLiteral("Max steps (1500)")), qPrintable(reason));
    QVERIFY(unused_field_reason(QStringLiteral("training.max_steps"), value_of).isEmpty());
    QVERIFY(unused_field_reason(QStringLiteral("training.lr"), value_of).isEmpty());
    QVERIFY(doc.set_value(QStringLiteral("training.max_steps"), 0));
    QVERIFY(unused_field_reason(QStringLiteral("training.epochs"), value_of).isEmpty());
  }

  void window_overlap_is_unused_without_sliding_windows() {
    JobDocument doc;
    doc.set_yaml(QStringLiteral("name: t\ntraining:\n  val_sliding_window: false\n"));
    const JobValueLookup value_of = [&](const QString& p) { return doc.value(p); };
    QVERIFY(!unused_field_reason(QStringLiteral("training.val_overlap"), value_of).isEmpty());
    QVERIFY(doc.set_value(QStringLiteral("training.val_sliding_window"), true));
    QVERIFY(unused_field_reason(QStringLiteral("training.val_overlap"), value_of).isEmpty());
  }
};

QTEST_GUILESS_MAIN(JobFieldCatalogTest)
#include "job_field_catalog_test.moc"
