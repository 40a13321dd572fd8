// JobEditorWidget: templates, the generated form and its inline messages, the
// two-way YAML view, the effective batch, and when Launch is allowed.
#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QtTest>

#include "app/jobs/job_document.hpp"
#include "app/jobs/job_templates.hpp"
#include "ui/jobs/field_editor.hpp"
#include "ui/jobs/job_editor_widget.hpp"
#include "ui/jobs/job_form.hpp"
#include "ui/jobs/template_picker.hpp"
#include "ui/jobs/yaml_view.hpp"
#include "ui/machine/machine_panel.hpp"
#include "app/settings/settings_store.hpp"

using namespace medsynth;
using namespace medsynth::ui;

namespace {

// Types into a line edit as a user would (textEdited fires).
void type_into(QLineEdit* edit, const QString& text) {
  edit->setFocus();
  edit->selectAll();
  QTest::keyClick(edit, Qt::Key_Backspace);
  QTest::keyClicks(edit, text);
}

}  // namespace

class TestJobEditor : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;
  std::unique_ptr<medsynth::app::SettingsStore> settings_;
  std::unique_ptr<app::JobDocument> doc_;
  std::unique_ptr<JobEditorWidget> editor_;

 private slots:
  void init() {
    settings_ = std::make_unique<medsynth::app::SettingsStore>(dir_.filePath("settings.ini"));
    doc_ = std::make_unique<app::JobDocument>();
    editor_ = std::make_unique<JobEditorWidget>(doc_.get(), settings_.get());
    editor_->resize(1200, 800);
    editor_->show();
    QVERIFY(QTest::qWaitForWindowExposed(editor_.get()));
  }
  void cleanup() {
    editor_.reset();
    doc_.reset();
    settings_.reset();
  }

  void picking_a_template_fills_form_and_yaml() {
    TemplatePicker* picker = editor_->template_picker();
    QVERIFY(picker->select("kl-autoencoder-amp"));
    QPushButton* use = picker->findChild<QPushButton*>("use_template");
    QVERIFY(use);
    QTest::mouseClick(use, Qt::LeftButton);
    QCOMPARE(doc_->template_id(), QStringLiteral("kl-autoencoder-amp"));
    QVERIFY(doc_->is_valid());
    QVERIFY(editor_->yaml_view()->toPlainText().contains("quickstart"));
    // The form shows the template's values (quickstart.yaml: batch_size 1, lr 1e-3).
    auto* batch = qobject_cast<QSpinBox*>(editor_->form()->editor("training.batch_size")->input());
    QVERIFY(batch);
    QCOMPARE(batch->value(), 1);
    auto* lr = qobject_cast<QLineEdit*>(editor_->form()->editor("training.lr")->input());
    QVERIFY(lr);
    QCOMPARE(lr->text().toDouble(), 1.0e-3);
    QVERIFY(editor_->launch_button()->isEnabled());
    // An untouched template is a "new job"; edited, it is unsaved work.
    QSignalSpy titles(editor_.get(), &JobEditorWidget::title_changed);
    QVERIFY(editor_->load_template("kl-autoencoder-amp"));
    QCOMPARE(titles.last().front().toString(), QStringLiteral("new job"));
    batch->setValue(3);
    QCOMPARE(titles.last().front().toString(), QStringLiteral("untitled job*"));
  }

  // "Epochs 2" beside "Max steps 1500": the form says which one ends the run.
  void epochs_are_greyed_out_while_max_steps_ends_the_run() {
    QVERIFY(editor_->load_template("kl-autoencoder-amp"));
    FieldEditor* epochs = editor_->form()->editor("training.epochs");
    QVERIFY(epochs);
    QVERIFY(doc_->value("training.max_steps").toInt() > 0);
    QVERIFY(!epochs->input()->isEnabled());
    QVERIFY2(epochs->unused_reason().contains(QStringLiteral("Max steps")), qPrintable(epochs->unused_reason()));
    qobject_cast<QSpinBox*>(editor_->form()->editor("training.max_steps")->input())->setValue(0);
    QVERIFY(epochs->input()->isEnabled());
    QVERIFY(epochs->unused_reason().isEmpty());
  }

  void editing_the_form_changes_document_and_yaml() {
    QVERIFY(editor_->load_template("kl-autoencoder-amp"));
    auto* steps = qobject_cast<QSpinBox*>(editor_->form()->editor("training.max_steps")->input());
    QVERIFY(steps);
    steps->setValue(30);
    QCOMPARE(doc_->value("training.max_steps").toInt(), 30);
    QVERIFY(editor_->yaml_view()->toPlainText().contains(QRegularExpression("max_steps:\\s*30")));
    // Comments of the template survive a form edit.
    QVERIFY(editor_->yaml_view()->toPlainText().contains("# Quick start"));

    auto* patch = qobject_cast<QLineEdit*>(editor_->form()->editor("data.patch_size")->input());
    QVERIFY(patch);
    type_into(patch, "16, 16, 16");
    QCOMPARE(doc_->value("data.patch_size").toList(), (QVariantList{16, 16, 16}));
    QVERIFY(editor_->yaml_view()->toPlainText().contains("16"));
  }

  void editing_the_yaml_updates_the_form() {
    QVERIFY(editor_->load_template("kl-autoencoder-amp"));
    YamlView* yaml = editor_->yaml_view();
    QString text = yaml->toPlainText();
    text.replace(QRegularExpression("batch_size:\\s*1\\b"), "batch_size: 5");
    yaml->setPlainText(text);
    QVERIFY(yaml->has_pending_edit());
    // Applied after the typing pause, without a nudge.
    QTRY_COMPARE(doc_->value("training.batch_size").toInt(), 5);
    auto* batch = qobject_cast<QSpinBox*>(editor_->form()->editor("training.batch_size")->input());
    QCOMPARE(batch->value(), 5);
  }

  void a_bad_value_shows_its_message_next_to_the_field() {
    QVERIFY(editor_->load_template("kl-autoencoder-amp"));
    FieldEditor* lr = editor_->form()->editor("training.lr");
    QVERIFY(!lr->has_issue());
    type_into(qobject_cast<QLineEdit*>(lr->input()), "-1");
    QVERIFY(!doc_->is_valid());
    QVERIFY(lr->has_issue());
    auto* label = lr->findChild<QLabel*>("issue");
    QVERIFY(label && label->isVisible());
    QVERIFY2(label->text().contains("-1") || label->text().contains("> 0"), qPrintable(label->text()));
    // Only that field complains.
    QVERIFY(!editor_->form()->editor("training.batch_size")->has_issue());
    QVERIFY(!editor_->launch_button()->isEnabled());
    // Text that is not a number never reaches the document, but is flagged at once.
    type_into(qobject_cast<QLineEdit*>(lr->input()), "fast");
    QVERIFY(lr->issue_text().contains("number"));
    // Fixing it clears the message and re-enables Launch.
    type_into(qobject_cast<QLineEdit*>(lr->input()), "1e-4");
    QVERIFY(!lr->has_issue());
    QCOMPARE(doc_->value("training.lr").toDouble(), 1e-4);
    QVERIFY(editor_->launch_button()->isEnabled());
  }

  void a_yaml_syntax_error_is_listed_with_its_line() {
    QVERIFY(editor_->load_template("kl-autoencoder-amp"));
    editor_->yaml_view()->setPlainText("name: x\ntraining: [unclosed\n");
    editor_->yaml_view()->commit_now();
    QVERIFY(!doc_->is_valid());
    QVERIFY(!editor_->form()->unplaced_issues().isEmpty());
    auto* list = editor_->findChild<QWidget*>("problems");
    QVERIFY(list && list->isVisible());
    QVERIFY(!editor_->launch_button()->isEnabled());
  }

  void field_text_parses_by_kind() {
    const app::JobField lr = *app::find_job_field("training.lr");
    const app::JobField amp = *app::find_job_field("training.amp");
    const app::JobField patch = *app::find_job_field("data.patch_size");
    const app::JobField spacing = *app::find_job_field("data.target_spacing");
    QString error;
    QCOMPARE(FieldEditor::parse_text("1e-4", lr, &error), QVariant(1e-4));
    QCOMPARE(FieldEditor::parse_text("false", amp, &error), QVariant(false));
    QCOMPARE(FieldEditor::parse_text("[32, 32,32]", patch, &error), QVariant(QVariantList{32, 32, 32}));
    QVERIFY(!FieldEditor::parse_text("32, 32", patch, &error).isValid());
    QVERIFY(error.contains("3 values"));
    QVERIFY(!FieldEditor::parse_text("no", amp, &error).isValid());
    QVERIFY(!FieldEditor::parse_text("", spacing, &error).isValid());  // nullable: empty means null
    QVERIFY(error.isEmpty());
    QCOMPARE(FieldEditor::to_text(QVariantList{1.5, 2.0}), QStringLiteral("1.5, 2.0"));
  }

  void effective_batch_follows_batch_accumulation_and_processes() {
    MachinePanel machine;
    QObject::connect(&machine, &MachinePanel::processes_changed, editor_.get(), &JobEditorWidget::set_world_size);
    app::MachineInfo info;
    info.cores = 4;
    info.gloo = true;
    machine.set_machine_info(info);
    QCOMPARE(machine.max_processes(), 4);

    QVERIFY(editor_->load_template("kl-autoencoder-amp"));  // batch 1, accumulation 1
    QVERIFY2(editor_->effective_batch_text().contains("Effective batch: 1 "), qPrintable(editor_->effective_batch_text()));
    machine.processes_spin_box()->setValue(2);
    QVERIFY2(editor_->effective_batch_text().contains("Effective batch: 2 "), qPrintable(editor_->effective_batch_text()));
    qobject_cast<QSpinBox*>(editor_->form()->editor("training.gradient_accumulation_steps")->input())->setValue(3);
    QVERIFY(editor_->effective_batch_text().contains("Effective batch: 6 "));
    qobject_cast<QSpinBox*>(editor_->form()->editor("training.batch_size")->input())->setValue(2);
    QVERIFY(editor_->effective_batch_text().contains("Effective batch: 12 "));
    QCOMPARE(editor_->effective_batch(), doc_->effective_batch(2));
    // More processes than the machine offers are refused by the panel.
    machine.set_processes(99);
    QCOMPARE(machine.processes(), 4);
  }

  void pending_templates_cannot_be_launched() {
    // Every built-in template trains now; one of a future workflow must still
    // be refused, so the editor gets a made-up one through its document.
    medsynth::app::JobTemplate pending = *medsynth::app::find_template(QStringLiteral("kl-autoencoder-amp"));
    pending.engine_supported = false;
    pending.pending_reason = QStringLiteral("engine support pending (test)");
    doc_->load_template(pending);
    QVERIFY(!doc_->pending_reason().isEmpty());
    QVERIFY(!editor_->launch_button()->isEnabled());
    auto* banner = editor_->findChild<QLabel*>("pending_banner");
    QVERIFY(banner && banner->isVisible());
    QVERIFY(banner->text().contains(doc_->pending_reason()));
    QSignalSpy launches(editor_.get(), &JobEditorWidget::launch_requested);
    QTest::mouseClick(editor_->launch_button(), Qt::LeftButton);
    QCOMPARE(launches.count(), 0);
    // The picker marks no built-in template as pending any more.
    auto* combo = editor_->template_picker()->findChild<QComboBox*>("template_combo");
    for (int i = 0; i < combo->count(); ++i) QVERIFY2(!combo->itemText(i).contains("pending"), qPrintable(combo->itemText(i)));
  }

  // Issue 38: the form shows the task's fields only, and a pipeline's fields
  // say which stage they apply to.
  void only_the_tasks_fields_are_shown_with_their_stage() {
    // Shown: its row is visible in its tab's form (another tab's page is
    // hidden as a whole, so the widget's own visibility would not tell).
    const auto shown = [&](const QString& path) {
      FieldEditor* e = editor_->form()->editor(path);
      auto* layout = e ? qobject_cast<QFormLayout*>(e->parentWidget()->layout()) : nullptr;
      return layout && layout->isRowVisible(e);
    };
    const auto label = [&](const QString& path) {
      FieldEditor* e = editor_->form()->editor(path);
      auto* layout = qobject_cast<QFormLayout*>(e->parentWidget()->layout());
      auto* l = layout ? qobject_cast<QLabel*>(layout->labelForField(e)) : nullptr;
      return l ? l->text() : QString();
    };
    QVERIFY(editor_->load_template("ldm-tiny"));
    QVERIFY(shown("model.diffusion_unet.channels"));
    QVERIFY(shown("scheduler.kind"));
    QVERIFY(!shown("model.vqgan.num_embeddings"));
    QVERIFY(!shown("model.resnet.depth"));
    QVERIFY2(label("training.max_steps").contains("diffusion stage"), qPrintable(label("training.max_steps")));
    QVERIFY2(label("training.lr").contains("every training stage"), qPrintable(label("training.lr")));
    QVERIFY2(label("ldm.autoencoder_steps").contains("autoencoder stage"), qPrintable(label("ldm.autoencoder_steps")));
    // With a VQ-GAN first stage its fields come back.
    QVERIFY(doc_->set_value("ldm.first_stage", QStringLiteral("vqgan")));
    QVERIFY(shown("model.vqgan.num_embeddings"));
    // A survival job: ResNet, no diffusion, and no stage labels.
    QVERIFY(editor_->load_template("survival-tiny"));
    QVERIFY(shown("model.resnet.depth"));
    QVERIFY(!shown("model.diffusion_unet.channels"));
    QVERIFY(!shown("loss.kl_weight"));
    QCOMPARE(label("training.max_steps"), editor_->form()->editor("training.max_steps")->field().label);
    // Issue 53 item 8: choosing another template says the job is unchanged
    // until "New from template"; the loaded one's description does not.
    TemplatePicker* picker = editor_->template_picker();
    QVERIFY(!picker->details_text().contains("unchanged"));
    QVERIFY(picker->select("ldm-tiny"));
    QVERIFY2(picker->details_text().contains("The job below is unchanged until you press New from template"),
             qPrintable(picker->details_text()));
    QCOMPARE(doc_->value(QStringLiteral("task")).toString(), QStringLiteral("survival"));
    // A tab with nothing the task reads is not shown.
    const QString diffusion = QStringLiteral("Latent diffusion");
    QVERIFY(editor_->load_template("ldm-tiny"));
    QVERIFY(editor_->form()->group_shown(diffusion));
    QVERIFY(editor_->load_template("kl-autoencoder-amp"));
    QVERIFY2(!editor_->form()->group_shown(diffusion), "an autoencoder job shows the Latent diffusion tab");
    QVERIFY(editor_->form()->group_shown(QStringLiteral("Training")));
  }

  // Issue 38: after opening a job file the picker no longer shows the last
  // template's name and description as if they were the job's.
  void an_opened_job_is_not_shown_as_the_last_template() {
    QVERIFY(editor_->load_template("ldm-tiny"));
    const QString path = dir_.filePath("survival.yaml");
    {
      app::JobDocument other;
      JobEditorWidget second(&other, settings_.get());
      QVERIFY(second.load_template("survival-tiny"));
      QVERIFY(second.save_as(path));
    }
    QVERIFY(editor_->open_file(path));
    auto* combo = editor_->template_picker()->findChild<QComboBox*>("template_combo");
    QCOMPARE(combo->currentIndex(), -1);
    QString details;
    for (QLabel* l : editor_->template_picker()->findChildren<QLabel*>())
      if (l->text().contains("survival.yaml")) details = l->text();
    QVERIFY2(details.contains("task: survival"), qPrintable(details));
    QVERIFY(editor_->template_picker()->current_id().isEmpty());
  }

  // Issue 38: the planner before Launch, and its warning when a job cannot
  // fit the machine the Machine panel probed.
  void the_planner_estimates_the_job_and_warns_when_it_cannot_fit() {
    QVERIFY(editor_->load_template("kl-autoencoder-amp"));
    app::MachineInfo machine;
    machine.cores = 2;
    machine.memory_gib = 24.0;
    editor_->set_machine_info(machine);
    const QString fits = editor_->plan_label()->text();
    QVERIFY2(fits.contains("peak") && fits.contains("per step on 2 CPU core(s)"), qPrintable(fits));
    QVERIFY2(!fits.contains("does not fit"), qPrintable(fits));
    machine.memory_gib = 0.25;  // less than the runtime alone
    editor_->set_machine_info(machine);
    QVERIFY2(editor_->plan_label()->text().contains("Probably does not fit this machine"),
             qPrintable(editor_->plan_label()->text()));
    QVERIFY(editor_->launch_button()->isEnabled());  // an estimate warns, it does not forbid
    // A smaller patch needs less, and fits: the estimate follows the form.
    machine.memory_gib = 0.56;  // between the 32^3 and the 64^3 step's peak
    editor_->set_machine_info(machine);
    QVERIFY(editor_->plan_label()->text().contains("Probably does not fit"));
    QVERIFY(doc_->set_value("data.patch_size", QVariantList{32, 32, 32}));
    QVERIFY2(editor_->plan_label()->text().contains("peak") && !editor_->plan_label()->text().contains("does not fit"),
             qPrintable(editor_->plan_label()->text()));
  }

  // Issue 38's must-show: the full-size MAISI job on a 2-core CPU without a
  // GPU gets its estimate and a warning before Launch.
  void the_planner_warns_on_the_full_size_maisi_job_on_a_small_cpu() {
    QVERIFY(editor_->load_template("maisi3d-rflow"));
    app::MachineInfo machine;
    machine.cores = 2;
    machine.memory_gib = 23.5;
    editor_->set_machine_info(machine);
    const QString text = editor_->plan_label()->text();
    QVERIFY2(text.contains("peak") && text.contains("Would take about") && text.contains("days"), qPrintable(text));
    // The same job on a cluster's GPUs: an estimate, no warning.
    app::MachineInfo gpu = machine;
    gpu.cuda = true;
    gpu.gpus = {QStringLiteral("NVIDIA H100 80GB HBM3")};
    editor_->set_machine_info(gpu);
    QVERIFY2(
        editor_->plan_label()->text().contains("on an H100") && !editor_->plan_label()->text().contains("Would take"),
        qPrintable(editor_->plan_label()->text()));
  }

  void save_and_open_round_trip_with_recent_jobs() {
    QVERIFY(editor_->load_template("kl-autoencoder-amp"));
    qobject_cast<QSpinBox*>(editor_->form()->editor("training.max_steps")->input())->setValue(77);
    const QString path = dir_.filePath("my-job.yaml");
    QVERIFY(editor_->save_as(path));
    QVERIFY(!doc_->is_modified());
    QCOMPARE(settings_->recent_jobs().value(0), path);
    app::JobDocument other;
    JobEditorWidget second(&other, settings_.get());
    QVERIFY(second.open_file(path));
    QCOMPARE(other.value("training.max_steps").toInt(), 77);
    QSignalSpy errors(&second, &JobEditorWidget::error_message);
    QVERIFY(!second.open_file(dir_.filePath("missing.yaml")));
    QCOMPARE(errors.count(), 1);
    QVERIFY(errors.front().front().toString().contains("missing.yaml"));
  }
};

QTEST_MAIN(TestJobEditor)
#include "test_job_editor.moc"
