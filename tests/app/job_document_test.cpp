// JobDocument: load/save round trips (YAML and JSON), field edits that keep
// the rest of the text, and validation issues with field paths and lines.
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "app/jobs/job_document.hpp"
#include "app/jobs/job_templates.hpp"
#include "app/jobs/job_yaml_tree.hpp"
#include "app_test_support.hpp"
#include "config/job_loader.hpp"

using namespace medsynth::app;

class JobDocumentTest : public QObject {
  Q_OBJECT

 private slots:
  void loads_and_saves_a_job_unchanged() {
    QTemporaryDir tmp;
    const QString source = test::source_dir() + "/resources/jobs/quickstart.yaml";
    JobDocument doc;
    QSignalSpy path_changed(&doc, &JobDocument::path_changed);
    QString error;
    QVERIFY2(doc.load(source, &error), qPrintable(error));
    QCOMPARE(path_changed.size(), 1);
    QCOMPARE(doc.path(), source);
    QVERIFY(!doc.is_modified());
    QVERIFY2(doc.is_valid(), qPrintable(doc.issues().isEmpty() ? QString() : doc.issues().front().to_string()));
    QVERIFY(doc.spec().has_value());
    QCOMPARE(doc.spec()->training.batch_size, 1);
    QCOMPARE(doc.value(QStringLiteral("training.batch_size")).toInt(), 1);
    QCOMPARE(doc.value(QStringLiteral("training.lr")).toDouble(), 1.0e-3);
    QCOMPARE(doc.value(QStringLiteral("data.patch_size")).toList(), (QVariantList{64, 64, 64}));
    QCOMPARE(doc.value(QStringLiteral("training.epochs")).toInt(), 2);  // not in the file: the default
    QVERIFY(!doc.value(QStringLiteral("training.no_such_field")).isValid());

    const QString copy = tmp.filePath(QStringLiteral("copy.yaml"));
    QVERIFY2(doc.save(copy, &error), qPrintable(error));
    QCOMPARE(test::read_all(copy), test::read_all(source));  // byte for byte, comments included
    QCOMPARE(doc.path(), copy);
    QVERIFY(!QFile::exists(copy + ".tmp"));
  }

  void set_value_edits_one_field_and_keeps_the_rest() {
    JobDocument doc;
    QString error;
    QVERIFY(doc.load(test::source_dir() + "/resources/jobs/quickstart.yaml", &error));
    const QString before = doc.yaml();
    QSignalSpy changed(&doc, &JobDocument::changed);
    QVERIFY(doc.set_value(QStringLiteral("training.batch_size"), 4));
    QCOMPARE(changed.size(), 1);
    QVERIFY(doc.is_modified());
    QCOMPARE(doc.value(QStringLiteral("training.batch_size")).toInt(), 4);
    QCOMPARE(doc.spec()->training.batch_size, 4);
    QVERIFY(doc.yaml().contains(QRegularExpression(QStringLiteral("\n  batch_size: 4\\b"))));  // its comment stays after it
    // Everything else, comments included, is where it was.
    QCOMPARE(doc.yaml().split('\n').size(), before.split('\n').size());
    QVERIFY(doc.yaml().contains(QStringLiteral("amp: true                  # bf16 autocast where the CPU has native bf16 (2.5x faster), else fp32")));
    // A commented value keeps its comment.
    QVERIFY(doc.set_value(QStringLiteral("training.amp"), false));
    QVERIFY(doc.yaml().contains(QStringLiteral("amp: false  # bf16 autocast where the CPU has native bf16 (2.5x faster), else fp32")));
    QCOMPARE(doc.spec()->training.amp, false);
    // A field absent from the file is inserted in its section; a new section at the end.
    QVERIFY(doc.set_value(QStringLiteral("training.gradient_accumulation_steps"), 3));
    QCOMPARE(doc.spec()->training.gradient_accumulation_steps, 3);
    QVERIFY(doc.set_value(QStringLiteral("distributed.backend"), QStringLiteral("gloo")));
    QCOMPARE(doc.spec()->distributed.backend, std::string("gloo"));
    QVERIFY(doc.set_value(QStringLiteral("data.patch_size"), QVariantList{16, 16, 16}));
    QCOMPARE(doc.spec()->data.patch_size, (std::array<int, 3>{16, 16, 16}));
    QVERIFY(doc.set_value(QStringLiteral("training.lr"), 3e-4));
    QCOMPARE(doc.spec()->training.lr, 3e-4);
    QVERIFY(doc.set_value(QStringLiteral("data.target_spacing"), QVariantList{1.5, 1.5, 2.0}));
    QVERIFY(doc.spec()->data.target_spacing.has_value());
    QCOMPARE((*doc.spec()->data.target_spacing)[2], 2.0);
    QVERIFY(doc.is_valid());
    QCOMPARE(doc.effective_batch(4), 4 * 3 * 4);
    // An invalid QVariant removes the key: back to the default.
    QVERIFY(doc.set_value(QStringLiteral("training.gradient_accumulation_steps"), QVariant()));
    QCOMPARE(doc.spec()->training.gradient_accumulation_steps, 1);
    QVERIFY(!doc.yaml().contains(QStringLiteral("gradient_accumulation_steps")));
    // The document is still the same job as the file plus these edits.
    const auto reloaded = medsynth::load_job_text(doc.yaml().toStdString(), "job.yaml");
    QCOMPARE(reloaded, *doc.spec());
  }

  void a_bad_value_is_an_issue_with_its_path_and_line() {
    JobDocument doc;
    QSignalSpy issues_changed(&doc, &JobDocument::issues_changed);
    doc.set_yaml(QStringLiteral("name: t\ntraining:\n  batch_size: 2\n  lr: 1e-4\n"));
    QVERIFY(doc.is_valid());
    QVERIFY(doc.set_value(QStringLiteral("training.lr"), -1.0));
    QVERIFY(!doc.is_valid());
    QVERIFY(!doc.spec().has_value());
    QVERIFY(issues_changed.size() >= 1);
    QCOMPARE(doc.issues().size(), 1);
    const FieldIssue issue = doc.issues().front();
    QCOMPARE(issue.path, QStringLiteral("training.lr"));
    QVERIFY2(issue.message.contains(QStringLiteral("-1")), qPrintable(issue.message));
    QCOMPARE(issue.line, 4);
    QCOMPARE(doc.issues_for(QStringLiteral("training.lr")).size(), 1);
    QVERIFY(doc.issues_for(QStringLiteral("training.batch_size")).isEmpty());
    QString why;
    QVERIFY(!doc.is_launchable(&why));
    QVERIFY(why.contains(QStringLiteral("training.lr")));
    // The value is still readable for the form, and fixing it clears the issue.
    QCOMPARE(doc.value(QStringLiteral("training.lr")).toDouble(), -1.0);
    QVERIFY(doc.set_value(QStringLiteral("training.lr"), 1e-3));
    QVERIFY(doc.is_valid());
  }

  void several_problems_and_syntax_errors() {
    JobDocument doc;
    doc.set_yaml(QStringLiteral("name: t\ntraining:\n  batch_szie: 2\n  lr: fast\ndata:\n  patch_size: [32, 32]\n"));
    QCOMPARE(doc.issues().size(), 3);
    QStringList paths;
    for (const auto& i : doc.issues()) paths << i.path;
    QVERIFY(paths.contains(QStringLiteral("training.batch_szie")));
    QVERIFY(paths.contains(QStringLiteral("training.lr")));
    QVERIFY(paths.contains(QStringLiteral("data.patch_size")));
    QCOMPARE(doc.issues_for(QStringLiteral("training.batch_szie")).front().line, 3);
    QVERIFY(doc.issues_for(QStringLiteral("training.batch_szie")).front().message.contains(QStringLiteral("batch_size")));

    doc.set_yaml(QStringLiteral("name: t\ntraining:\n  lr: [1, 2\n  epochs: 3\n"));
    QCOMPARE(doc.issues().size(), 1);
    QVERIFY(doc.issues().front().path.isEmpty());
    QVERIFY(doc.issues().front().line > 0);
    // A field elsewhere in a document with a syntax error is still edited as text.
    QVERIFY(doc.set_value(QStringLiteral("training.epochs"), 4));
    QVERIFY(doc.yaml().contains(QStringLiteral("  epochs: 4\n")));
    QVERIFY(doc.yaml().contains(QStringLiteral("  lr: [1, 2\n")));
    QCOMPARE(doc.issues().size(), 1);
    // JSON too broken to parse cannot be edited field by field.
    doc.set_yaml(QStringLiteral("{\"training\": {\"epochs\": 2"));
    const QString broken = doc.yaml();
    QVERIFY(!doc.set_value(QStringLiteral("training.epochs"), 4));
    QCOMPARE(doc.yaml(), broken);
  }

  // Issue 19.5: a 1 KB "billion laughs" file (aliases of aliases, 9^9 values
  // once copied out) expanded without bound in the job editor.
  void aliases_that_explode_are_refused_not_expanded() {
    QString bomb = QStringLiteral("name: t\na0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for (int i = 1; i < 10; ++i) {
      QStringList refs;
      for (int k = 0; k < 9; ++k) refs << QStringLiteral("*a%1").arg(i - 1);
      bomb += QStringLiteral("a%1: &a%1 [%2]\n").arg(i).arg(refs.join(QStringLiteral(", ")));
    }
    bomb += QStringLiteral("data:\n  patch_size: *a9\n");
    QVERIFY(bomb.size() < 1024);
    QString error;
    QVERIFY(!parse_job_tree(bomb, &error));
    QVERIFY2(error.contains(QStringLiteral("expands to more than 100000 values")), qPrintable(error));
    JobDocument doc;
    doc.set_yaml(bomb);
    QVERIFY(!doc.is_valid());
    QTemporaryDir tmp;
    QVERIFY(!doc.save(tmp.filePath(QStringLiteral("bomb.json")), &error));
    QVERIFY2(error.contains(QStringLiteral("expands to more than")), qPrintable(error));
    // Deep nesting, too.
    QVERIFY(!parse_job_tree(QStringLiteral("name: t\nmodel: ") + QString(100, QLatin1Char('[')) + QString(100, QLatin1Char(']')) + QLatin1Char('\n'), &error));
    QVERIFY2(error.contains(QStringLiteral("nested deeper than 64 levels")), qPrintable(error));
  }

  void a_missing_data_folder_is_reported_by_the_config_library() {
    JobDocument doc;
    doc.set_yaml(QStringLiteral("data:\n  source: folder\n  path: /no/such/folder/medsynth\n"));
    QVERIFY(!doc.is_valid());
    QCOMPARE(doc.issues().front().path, QStringLiteral("data.path"));
  }

  void json_documents_stay_json() {
    QTemporaryDir tmp;
    const QString path = tmp.filePath(QStringLiteral("job.json"));
    QVERIFY(test::write_all(path, R"({"name": "j", "training": {"batch_size": 2, "lr": 0.001}})"));
    JobDocument doc;
    QString error;
    QVERIFY2(doc.load(path, &error), qPrintable(error));
    QVERIFY(doc.is_valid());
    QVERIFY(doc.set_value(QStringLiteral("training.batch_size"), 5));
    QVERIFY(doc.yaml().trimmed().startsWith(QLatin1Char('{')));
    QCOMPARE(doc.spec()->training.batch_size, 5);
    QCOMPARE(doc.spec()->training.lr, 0.001);
    QVERIFY(doc.save(path, &error));
    QCOMPARE(medsynth::load_job_file(path.toStdString()).training.batch_size, 5);
    // Saved as YAML: converted, same job.
    const QString yaml = tmp.filePath(QStringLiteral("job.yaml"));
    QVERIFY(doc.save(yaml, &error));
    QVERIFY(!test::read_all(yaml).trimmed().startsWith('{'));
    QCOMPARE(medsynth::load_job_file(yaml.toStdString()), medsynth::load_job_file(path.toStdString()));
  }

  void a_flow_style_section_is_edited_through_the_tree() {
    JobDocument doc;
    doc.set_yaml(QStringLiteral("name: f\ntraining: {batch_size: 2, lr: 0.001}\n"));
    QVERIFY(doc.is_valid());
    QVERIFY(doc.set_value(QStringLiteral("training.batch_size"), 6));
    QCOMPARE(doc.spec()->training.batch_size, 6);
    QCOMPARE(doc.spec()->training.lr, 0.001);
    QCOMPARE(doc.spec()->name, std::string("f"));
  }

  void block_sequences_and_nested_sections_are_edited_in_place() {
    JobDocument doc;
    doc.set_yaml(QStringLiteral("# header\ndata:\n  patch_size:\n    - 32\n    - 32\n    - 32\n  num_train: 4   # few\n"
                                "model:\n  autoencoder:\n    latent_channels: 4\n"));
    QVERIFY(doc.is_valid());
    QVERIFY(doc.set_value(QStringLiteral("data.patch_size"), QVariantList{16, 16, 16}));
    QVERIFY(doc.set_value(QStringLiteral("model.autoencoder.norm_num_groups"), 8));
    QVERIFY(doc.set_value(QStringLiteral("model.discriminator.channels"), 16));
    QCOMPARE(doc.yaml(), QStringLiteral("# header\ndata:\n  patch_size: [16, 16, 16]\n  num_train: 4   # few\n"
                                        "model:\n  autoencoder:\n    latent_channels: 4\n    norm_num_groups: 8\n"
                                        "  discriminator:\n    channels: 16\n"));
    QVERIFY(doc.is_valid());
    QCOMPARE(doc.spec()->model.discriminator.channels, 16);
  }

  void load_and_save_errors_name_the_file() {
    JobDocument doc;
    QString error;
    QVERIFY(!doc.load(QStringLiteral("/no/such/job.yaml"), &error));
    QVERIFY(error.startsWith(QStringLiteral("/no/such/job.yaml")));
    QVERIFY(!doc.save(QStringLiteral("/no/such/dir/job.yaml"), &error));
    QVERIFY(error.startsWith(QStringLiteral("/no/such/dir/job.yaml")));
  }

  void templates_load_as_unsaved_documents() {
    JobDocument doc;
    doc.load_template(*find_template(QStringLiteral("kl-autoencoder-amp")));
    QVERIFY(doc.path().isEmpty());
    QVERIFY(doc.is_modified());
    QVERIFY(doc.is_launchable());
    JobTemplate pending = *find_template(QStringLiteral("kl-autoencoder-amp"));
    pending.engine_supported = false;
    pending.pending_reason = QStringLiteral("engine support pending (test)");
    doc.load_template(pending);
    QString why;
    QVERIFY(!doc.is_launchable(&why));
    QVERIFY(why.contains(QStringLiteral("pending")));
    QCOMPARE(doc.pending_reason(), why);
  }

  void scalar_text() {
    QCOMPARE(JobDocument::yaml_scalar_text(true), QStringLiteral("true"));
    QCOMPARE(JobDocument::yaml_scalar_text(4.0), QStringLiteral("4.0"));
    QCOMPARE(JobDocument::yaml_scalar_text(1e-4), QStringLiteral("1.0e-4"));
    QCOMPARE(JobDocument::yaml_scalar_text(2.5e-7), QStringLiteral("2.5e-7"));
    QCOMPARE(JobDocument::yaml_scalar_text(0.001), QStringLiteral("0.001"));
    QCOMPARE(JobDocument::yaml_scalar_text(1e21), QStringLiteral("1.0e21"));
    QCOMPARE(JobDocument::yaml_scalar_text(-3.0), QStringLiteral("-3.0"));
    QCOMPARE(JobDocument::yaml_scalar_text(QVariantList{1, 2}), QStringLiteral("[1, 2]"));
    QCOMPARE(JobDocument::yaml_scalar_text(QStringLiteral("simulated")), QStringLiteral("simulated"));
    QCOMPARE(JobDocument::yaml_scalar_text(QStringLiteral("yes")), QStringLiteral("\"yes\""));
    QCOMPARE(JobDocument::yaml_scalar_text(QStringLiteral("a: b # c")), QStringLiteral("\"a: b # c\""));
    QCOMPARE(JobDocument::yaml_scalar_text(QStringLiteral("")), QStringLiteral("\"\""));
  }
};

QTEST_GUILESS_MAIN(JobDocumentTest)
#include "job_document_test.moc"
