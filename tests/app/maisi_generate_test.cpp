// "Generate CT from MAISI weights" without a display: the two engine command
// lines (folder, --out, --model, size/spacing overrides, --num-images,
// --label, launch --nproc-per-node), the request's checks, the flow against a
// scripted engine (arguments in order, the engine's error message reaching
// the caller, the generated pair found), and - when the engine is built -
// import-maisi + generate for real on the miniature NV-Generate folder.
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "app/session/maisi_generate_flow.hpp"
#include "app/session/run_controller.hpp"
#include "app/launch/maisi_generate_request.hpp"
#include "app_test_support.hpp"
#include "volume/volume.hpp"
#include "volume/volume_io.hpp"

using namespace medsynth::app;
namespace t = medsynth::app::test;

namespace {

QString miniature_folder() { return t::source_dir() + QStringLiteral("/tests/engine/diffusion/data/maisi_folder"); }

// A folder that looks like an NV-Generate checkout (what the console checks).
QString fake_nv_generate(const QString& root) {
  t::write_all(root + "/configs/config_network_rflow.json", "{}");
  QDir().mkpath(root + "/models");
  return root;
}

// An executable shell script as the engine.
QString write_engine(const QString& path, const QByteArray& body) {
  t::write_all(path, "#!/bin/sh\n" + body);
  QFile::setPermissions(path, QFile::permissions(path) | QFileDevice::ExeOwner | QFileDevice::ExeUser);
  return path;
}

bool wait_done(QSignalSpy& ok, QSignalSpy& failed, int ms = 120000) {
  return QTest::qWaitFor([&] { return ok.count() + failed.count() > 0; }, ms);
}

}  // namespace

class MaisiGenerateTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;

  MaisiGenerateRequest request(const QString& name) {
    MaisiGenerateRequest r;
    r.folder = fake_nv_generate(dir_.filePath(name + "-nv"));
    r.run_dir = dir_.filePath(name + "-runs/maisi-run");
    return r;
  }

 private slots:
  void initTestCase() { QVERIFY(dir_.isValid()); }

  void command_lines_carry_folder_out_model_overrides_and_label() {
    MaisiGenerateRequest r;
    r.folder = "/data/NV-Generate-CTMR";
    r.model = "ddpm-ct";
    r.run_dir = "/runs/maisi-ddpm-ct-20261201-120000";
    r.output_size = {512, 512, 256};
    r.spacing = {0.75, 0.75, 1.25};
    r.num_images = 2;
    QCOMPARE(maisi_import_arguments(r), (QStringList{"import-maisi", "/data/NV-Generate-CTMR", "--out",
                                                     "/runs/maisi-ddpm-ct-20261201-120000", "--model", "ddpm-ct"}));
    // The generate step runs as a run: through the engine's launcher, with
    // its event stream (--json) followed like a training run's.
    QCOMPARE(maisi_generate_arguments(r),
             (QStringList{"launch", "--nproc-per-node", "1", "generate", "/runs/maisi-ddpm-ct-20261201-120000",
                          "generate.output_size=[512,512,256]", "generate.spacing=[0.75,0.75,1.25]", "--num-images",
                          "2", "--json"}));
    r.label_map = "/data/mask.nii.gz";
    r.nproc_per_node = 4;
    QCOMPARE(maisi_generate_arguments(r),
             (QStringList{"launch", "--nproc-per-node", "4", "generate", "/runs/maisi-ddpm-ct-20261201-120000",
                          "generate.output_size=[512,512,256]", "generate.spacing=[0.75,0.75,1.25]", "--num-images",
                          "2", "--label", "/data/mask.nii.gz", "--json"}));
    QCOMPARE(default_maisi_run_dir("/runs", "rflow-ct", QDateTime(QDate(2026, 12, 1), QTime(9, 5, 7))),
             QStringLiteral("/runs/maisi-rflow-ct-20261201-090507"));
  }

  // Issue 34: the MR contrast and the guidance scale reach generate as job
  // overrides; left at "the model's" (below 0) they are not passed, so
  // import-maisi's choice for the model (rflow-mr: 9 and 15) stands.
  void modality_and_guidance_are_overrides_only_when_chosen() {
    MaisiGenerateRequest r;
    r.folder = "/data/NV-Generate-CTMR";
    r.model = "rflow-mr";
    r.run_dir = "/runs/mr";
    QVERIFY(!maisi_generate_arguments(r).join(' ').contains("generate.modality"));
    QVERIFY(!maisi_generate_arguments(r).join(' ').contains("guidance"));
    r.modality = 10;
    r.guidance_scale = 7.5;
    const QStringList args = maisi_generate_arguments(r);
    QVERIFY2(args.contains("generate.modality=10"), qPrintable(args.join(' ')));
    QVERIFY2(args.contains("generate.guidance_scale=7.5"), qPrintable(args.join(' ')));
    r.guidance_scale = 0;  // 0 is a choice: guidance off
    QVERIFY(maisi_generate_arguments(r).contains("generate.guidance_scale=0"));
    QVERIFY(!r.validate().join('\n').contains("guidance_scale"));
  }

  // Issue 34.6: with volumes to fine-tune on, the second step is a training
  // run from the imported networks (`train RUN --data ...`), beside it in the
  // runs folder, which generates at its end with the request's settings.
  void fine_tuning_makes_the_second_step_a_training_run_of_the_imported_networks() {
    MaisiGenerateRequest r;
    r.folder = "/data/NV-Generate-CTMR";
    r.run_dir = "/runs/maisi-rflow-ct-20261201-120000";
    r.output_size = {64, 64, 32};
    r.num_images = 0;
    r.nproc_per_node = 2;
    r.finetune_data = "/data/my-ct";
    r.finetune_steps = 500;
    const QStringList args = maisi_generate_arguments(r);
    QCOMPARE(args.mid(0, 5), (QStringList{"launch", "--nproc-per-node", "2", "train", r.run_dir}));
    for (const char* expected : {"training.max_steps=500", "generate.output_size=[64,64,32]", "generate.num_images=0",
                                 "--json", "--data", "/data/my-ct", "--runs-dir", "/runs"})
      QVERIFY2(args.contains(QString::fromLatin1(expected)), qPrintable(expected + (": " + args.join(' '))));
    QVERIFY(!args.contains("generate"));
    // Its problems name the field.
    r.finetune_steps = 0;
    QVERIFY2(r.validate().join('\n').contains("finetune_steps"), qPrintable(r.validate().join('\n')));
    QVERIFY2(r.validate().join('\n').contains("finetune_data: /data/my-ct: no such"),
             qPrintable(r.validate().join('\n')));
  }

  void a_folder_without_models_or_configs_is_refused_by_name() {
    const QString bare = dir_.filePath("bare");
    t::write_all(bare + "/configs/config_network_rflow.json", "{}");
    QStringList p = maisi_folder_problems(bare);
    QCOMPARE(p.size(), 1);
    QVERIFY2(p.front().contains(bare) && p.front().contains("models/"), qPrintable(p.front()));
    const QString no_configs = dir_.filePath("no-configs");
    QDir().mkpath(no_configs + "/models");
    p = maisi_folder_problems(no_configs);
    QVERIFY2(p.size() == 1 && p.front().contains("configs/config_network_*.json"), qPrintable(p.join('\n')));
    QVERIFY(maisi_folder_problems(miniature_folder()).isEmpty());

    MaisiGenerateRequest r = request("checks");
    QVERIFY2(r.validate().isEmpty(), qPrintable(r.validate().join('\n')));
    r.label_map = dir_.filePath("missing-mask.nii.gz");
    r.output_size[2] = 0;
    r.spacing[0] = -1.0;
    r.model = "rflow-xyz";
    const QString all = r.validate().join('\n');
    for (const char* field : {"label_map:", "output_size.z:", "spacing.x:", "model:"})
      QVERIFY2(all.contains(field), qPrintable(all));
  }

  void the_engine_message_reaches_the_caller() {
    const QString engine = write_engine(dir_.filePath("failing-engine"),
                                        "echo 'reading the folder' >&2\n"
                                        "echo \"medsynth-engine: error: $2/models/autoencoder_v1.pt: not found\" >&2\n"
                                        "exit 3\n");
    MaisiGenerateFlow flow(nullptr, engine);
    QSignalSpy ok(&flow, &MaisiGenerateFlow::succeeded), failed(&flow, &MaisiGenerateFlow::failed);
    const MaisiGenerateRequest r = request("failing");
    flow.start(r);
    QVERIFY(wait_done(ok, failed));
    QCOMPARE(ok.count(), 0);
    const QString message = failed.front().front().toString();
    QVERIFY2(message.startsWith("import-maisi failed (exit 3)"), qPrintable(message));
    QVERIFY2(message.contains("medsynth-engine: error: " + r.folder + "/models/autoencoder_v1.pt: not found"),
             qPrintable(message));
    QCOMPARE(flow.stage(), MaisiGenerateFlow::Stage::failed);
  }

  void an_invalid_request_fails_before_any_process() {
    MaisiGenerateFlow flow(nullptr, write_engine(dir_.filePath("never-run"), "touch \"$0.ran\"\n"));
    QSignalSpy failed(&flow, &MaisiGenerateFlow::failed), started(&flow, &MaisiGenerateFlow::stage_started);
    MaisiGenerateRequest r = request("invalid");
    QDir().rmdir(r.folder + "/models");
    flow.start(r);
    QCOMPARE(failed.count(), 1);
    QVERIFY(failed.front().front().toString().contains("models/"));
    QCOMPARE(started.count(), 0);
    QVERIFY(!QFile::exists(dir_.filePath("never-run.ran")));
  }

  void both_commands_run_in_order_and_the_generated_pair_is_found() {
    // Records each call, makes the run directory, and writes a pair like generate --label.
    const QString log = dir_.filePath("calls.txt");
    const QString engine =
        write_engine(dir_.filePath("scripted-engine"),
                     "echo \"$@\" >> '" + log.toUtf8() +
                         "'\n"
                         "case \"$1\" in\n"
                         "  import-maisi) mkdir -p \"$4\"; touch \"$4/job.yaml\"; echo \"$4\" ;;\n"
                         "  launch) mkdir -p \"$5/output\"; echo x > \"$5/output/image_seed0_rank0_image.nii.gz\";"
                         " echo x > \"$5/output/image_seed0_rank0_label.nii.gz\"; echo 'step 3/3' >&2;"
                         " echo '{\"v\":1,\"type\":\"run_started\",\"time\":\"2026-12-01T09:00:00Z\",\"rank\":0,"
                         "\"run_dir\":\"'\"$5\"'\",\"job_name\":\"maisi\",\"task\":\"ldm\",\"world_size\":1,"
                         "\"total_steps\":1,\"device\":\"cpu\"}';"
                         " echo '{\"v\":1,\"type\":\"progress\",\"time\":\"2026-12-01T09:00:01Z\",\"rank\":0,"
                         "\"step\":1,\"total_steps\":1,\"epoch\":0,\"epochs\":1,\"samples_per_s\":1,\"eta_s\":0}';"
                         " echo '{\"v\":1,\"type\":\"run_finished\",\"time\":\"2026-12-01T09:00:02Z\",\"rank\":0,"
                         "\"status\":\"completed\",\"metrics\":{},\"duration_s\":2}' ;;\n"
                         "esac\n");
    MaisiGenerateFlow flow(nullptr, engine);
    QSignalSpy ok(&flow, &MaisiGenerateFlow::succeeded), failed(&flow, &MaisiGenerateFlow::failed);
    QSignalSpy stages(&flow, &MaisiGenerateFlow::stage_started), lines(&flow, &MaisiGenerateFlow::output_line);
    QSignalSpy runs(&flow, &MaisiGenerateFlow::generation_started);
    MaisiGenerateRequest r = request("scripted");
    r.label_map = t::write_all(dir_.filePath("mask.nii.gz"), "x") ? dir_.filePath("mask.nii.gz") : QString();
    r.output_size = {16, 24, 32};
    flow.start(r);
    QVERIFY(wait_done(ok, failed));
    QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.front().front().toString()));
    QCOMPARE(ok.front().at(0).toString(), r.run_dir + "/output/image_seed0_rank0_image.nii.gz");
    QCOMPARE(ok.front().at(1).toString(), r.run_dir + "/output/image_seed0_rank0_label.nii.gz");
    QCOMPARE(stages.count(), 2);
    QCOMPARE(stages.at(0).at(0).toString(), QStringLiteral("import-maisi"));
    QCOMPARE(stages.at(1).at(0).toString(), QStringLiteral("generate"));
    const QStringList calls = QString::fromUtf8(t::read_all(log)).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(calls, (QStringList{maisi_import_arguments(r).join(' '), maisi_generate_arguments(r).join(' ')}));
    bool saw_progress = false;
    for (const auto& l : lines) saw_progress = saw_progress || l.front().toString() == "step 3/3";
    QVERIFY(saw_progress);
    QCOMPARE(flow.stage(), MaisiGenerateFlow::Stage::done);
    // The generate step was a run whose model followed the event stream.
    QCOMPARE(runs.count(), 1);
    QVERIFY(flow.generation());
    QCOMPARE(flow.generation()->model()->status(), RunStatus::finished);
    QCOMPARE(flow.generation()->model()->run_dir(), r.run_dir);
  }

  void the_real_engine_generates_from_the_miniature_folder() {
    const QString engine = t::engine_path();
    if (engine.isEmpty()) QSKIP("medsynth-engine is not built (ninja medsynth-engine, or set MEDSYNTH_ENGINE)");
    MaisiGenerateFlow flow(nullptr, engine);
    QSignalSpy ok(&flow, &MaisiGenerateFlow::succeeded), failed(&flow, &MaisiGenerateFlow::failed);
    MaisiGenerateRequest r;
    r.folder = miniature_folder();
    r.run_dir = dir_.filePath("real-runs/maisi-rflow-ct");
    r.output_size = {16, 24, 32};
    r.spacing = {1.5, 1.2, 2.0};
    flow.start(r);
    QVERIFY(wait_done(ok, failed, 240000));
    QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.front().front().toString()));
    const QString image = ok.front().at(0).toString();
    QVERIFY2(image.startsWith(r.run_dir + "/output/image_seed") && image.endsWith(".nii.gz"), qPrintable(image));
    QVERIFY(QFileInfo(image).size() > 0);
    QVERIFY(QFile::exists(r.run_dir + "/job.yaml"));
    // The real engine's event stream reached the run's model: one image of
    // one, listed as an artifact, and the run ended as completed.
    RunModel* model = flow.generation()->model();
    QCOMPARE(model->status(), RunStatus::finished);
    QCOMPARE(model->total_steps(), 1);
    bool listed = false;
    for (const auto& a : model->artifacts()) listed = listed || a.path == image;
    QVERIFY2(listed, qPrintable(image));
  }

  // Issue 34.6 for real: import the miniature folder, fine-tune its UNet on
  // four volumes for three steps as a run of its own, which generates.
  void the_real_engine_fine_tunes_the_imported_unet_then_generates() {
    const QString engine = t::engine_path();
    if (engine.isEmpty()) QSKIP("medsynth-engine is not built (ninja medsynth-engine, or set MEDSYNTH_ENGINE)");
    const QString volumes = dir_.filePath("my-ct");
    QDir().mkpath(volumes);
    for (int n = 0; n < 4; ++n) {
      medsynth::Volume v = medsynth::make_volume({32, 16, 48}, {1.5, 1.5, 2.0});
      for (std::size_t i = 0; i < v.voxels.size(); ++i)
        v.voxels[i] = static_cast<float>(-1000.0 + 1500.0 * ((i * (n + 3)) % 97) / 97.0);
      medsynth::write_volume(v, QStringLiteral("%1/ct_%2.nii.gz").arg(volumes).arg(n).toStdString());
    }
    MaisiGenerateFlow flow(nullptr, engine);
    QSignalSpy ok(&flow, &MaisiGenerateFlow::succeeded), failed(&flow, &MaisiGenerateFlow::failed);
    QSignalSpy stages(&flow, &MaisiGenerateFlow::stage_started);
    MaisiGenerateRequest r;
    r.folder = miniature_folder();
    r.run_dir = dir_.filePath("finetune-runs/maisi-rflow-ct");
    r.output_size = {16, 24, 32};
    r.spacing = {1.5, 1.2, 2.0};
    r.finetune_data = volumes;
    r.finetune_steps = 3;
    flow.start(r);
    QVERIFY(wait_done(ok, failed, 280000));
    QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.front().front().toString()));
    QCOMPARE(stages.count(), 2);
    QCOMPARE(stages.at(1).at(0).toString(), QStringLiteral("fine-tune"));
    // A new run beside the import, whose generate stage wrote the image.
    const QString trained = flow.generation()->run_dir();
    QVERIFY2(trained != r.run_dir && QFileInfo(trained).absolutePath() == QFileInfo(r.run_dir).absolutePath(),
             qPrintable(trained));
    const QString image = ok.front().at(0).toString();
    QVERIFY2(image.startsWith(trained + "/output/image_seed") && image.endsWith(".nii.gz"), qPrintable(image));
    QCOMPARE(flow.generation()->model()->status(), RunStatus::finished);
    QCOMPARE(flow.generation()->model()->task(), QStringLiteral("ldm"));
  }

  void the_real_engines_error_for_missing_weights_reaches_the_caller() {
    const QString engine = t::engine_path();
    if (engine.isEmpty()) QSKIP("medsynth-engine is not built (ninja medsynth-engine, or set MEDSYNTH_ENGINE)");
    // A checkout whose download stopped half-way: models/ without the UNet.
    const QString folder = dir_.filePath("half-download");
    for (const char* rel : {"configs/config_infer.json", "configs/config_network_rflow.json",
                               "configs/environment_rflow-ct.json", "models/autoencoder_v1.pt",
                               "models/controlnet_3d_rflow-ct.pt"})
      QVERIFY(t::write_all(folder + "/" + rel, t::read_all(miniature_folder() + "/" + QString(rel))));
    MaisiGenerateFlow flow(nullptr, engine);
    QSignalSpy ok(&flow, &MaisiGenerateFlow::succeeded), failed(&flow, &MaisiGenerateFlow::failed);
    MaisiGenerateRequest r;
    r.folder = folder;
    r.run_dir = dir_.filePath("real-runs/half");
    flow.start(r);
    QVERIFY(wait_done(ok, failed));
    QCOMPARE(ok.count(), 0);
    const QString message = failed.front().front().toString();
    QVERIFY2(message.startsWith("import-maisi failed") && message.contains("diff_unet_3d_rflow-ct.pt") &&
                 message.contains("not found"),
             qPrintable(message));
    QVERIFY(!QFile::exists(r.run_dir));
  }
};

QTEST_GUILESS_MAIN(MaisiGenerateTest)
#include "maisi_generate_test.moc"
