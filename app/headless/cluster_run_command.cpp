// `medsynth run`: the headless cluster launch (see cluster_run_command.hpp).
#include "app/headless/cluster_run_command.hpp"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <QTimer>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <memory>

#include "app/cluster/k8s_manifest.hpp"
#include "app/cluster/launch_record.hpp"
#include "app/cluster/launcher_factory.hpp"
#include "app/headless/terminal_auth_delegate.hpp"

namespace medsynth::app {
namespace {

std::atomic<int> g_interrupts{0};
extern "C" void on_interrupt(int) { g_interrupts.fetch_add(1); }

void say(const QString& text) {
  std::fprintf(stdout, "%s\n", qPrintable(text));
  std::fflush(stdout);
}
void complain(const QString& text) { std::fprintf(stderr, "medsynth run: %s\n", qPrintable(text)); }

void add_options(QCommandLineParser& p) {
  p.addPositionalArgument(QStringLiteral("job"), QStringLiteral("Job file (.yaml)"));
  p.addPositionalArgument(QStringLiteral("overrides"), QStringLiteral("key=value overrides"), QStringLiteral("[key=value...]"));
  p.addOption({QStringLiteral("cluster"), QStringLiteral("Cluster file (docs/cluster.md)"), QStringLiteral("CLUSTER.yaml")});
  p.addOption({QStringLiteral("attach"), QStringLiteral("Follow a run started earlier, from its launch record"), QStringLiteral("RECORD.json")});
  p.addOption({QStringLiteral("nproc-per-node"), QStringLiteral("Engine processes per node (default: the cluster's nproc_per_node)"), QStringLiteral("N")});
  p.addOption({QStringLiteral("max-restarts"), QStringLiteral("Restart all workers from the last checkpoint up to K times"), QStringLiteral("K"), QStringLiteral("0")});
  p.addOption({QStringLiteral("data"), QStringLiteral("Volumes on the cluster: a folder or CSV manifest"), QStringLiteral("PATH")});
  p.addOption({QStringLiteral("resume"), QStringLiteral("A run directory on the cluster, or 'auto'"), QStringLiteral("RUN")});
  p.addOption({QStringLiteral("accept-new-host-keys"), QStringLiteral("Trust hosts not in known_hosts without asking (prints their fingerprints)")});
  p.addOption({QStringLiteral("k8s-manifest"), QStringLiteral("kubernetes cluster: write the manifests here instead of launching"), QStringLiteral("FILE")});
  p.addOption({QStringLiteral("quiet"), QStringLiteral("Only node states, validation metrics and the result")});
  p.addHelpOption();
}

int export_manifest(const ClusterSpec& cluster, const LaunchRequest& request, const QString& out_path) {
  QFile job(request.job_file);
  if (!job.open(QIODevice::ReadOnly)) {
    complain(QStringLiteral("%1: %2").arg(request.job_file, job.errorString()));
    return 2;
  }
  const QString text = kubernetes_manifest(cluster, request, QFileInfo(request.job_file).completeBaseName(), QString::fromUtf8(job.readAll()));
  QSaveFile out(out_path);
  if (!out.open(QIODevice::WriteOnly) || out.write(text.toUtf8()) < 0 || !out.commit()) {
    complain(QStringLiteral("%1: cannot write (%2)").arg(out_path, out.errorString()));
    return 2;
  }
  say(QStringLiteral("wrote %1 (kubectl apply -f %1)").arg(out_path));
  return 0;
}

}  // namespace

QString cluster_run_help() {
  QCommandLineParser p;
  add_options(p);
  return QStringLiteral("medsynth run --cluster CLUSTER.yaml JOB [key=value ...]\n") + p.helpText().section(QLatin1Char('\n'), 1);
}

namespace {

// The cluster to run on: the launch record's (--attach; the record goes to
// *record) or the cluster file's. Empty: *error says why.
std::optional<ClusterSpec> cluster_of_command(const QCommandLineParser& p, bool attach,
                                              std::optional<LaunchRecord>* record, QString* error) {
  std::optional<ClusterSpec> cluster;
  if (attach) {
    *record = load_launch_record(p.value(QStringLiteral("attach")), error);
    if (*record) cluster = (*record)->cluster;
  } else if (!p.isSet(QStringLiteral("cluster"))) {
    *error = QStringLiteral("--cluster CLUSTER.yaml is required (or --attach RECORD)");
  } else {
    cluster = load_cluster_file(p.value(QStringLiteral("cluster")), error);
  }
  return cluster;
}

// A new run's request: the job file, its overrides and the options. False:
// complained already.
bool read_launch_request(const QCommandLineParser& p, const ClusterSpec& cluster, LaunchRequest* request) {
  const QStringList positional = p.positionalArguments();
  if (positional.isEmpty()) {
    complain(QStringLiteral("no job file given"));
    return false;
  }
  request->job_file = positional.front();
  request->overrides = positional.mid(1);
  bool ok = true;
  request->nproc_per_node = p.isSet(QStringLiteral("nproc-per-node"))
                                ? p.value(QStringLiteral("nproc-per-node")).toInt(&ok)
                                : cluster.nproc_per_node;
  if (ok) request->max_restarts = p.value(QStringLiteral("max-restarts")).toInt(&ok);
  if (!ok) {
    complain(QStringLiteral("--nproc-per-node and --max-restarts take whole numbers"));
    return false;
  }
  request->data_path = p.value(QStringLiteral("data"));
  request->resume_run_dir = p.value(QStringLiteral("resume"));
  request->paths_on_nodes = true;
  if (const QStringList problems = request->validate(); !problems.isEmpty()) {
    complain(problems.join(QStringLiteral("\n")));
    return false;
  }
  return true;
}

// Prints node states as they change, the engine's stderr, the run's start,
// its metrics and its result; the result also ends the event loop.
void print_progress(Launcher* launcher, bool quiet) {
  RunModel* model = launcher->model();
  QObject::connect(launcher, &Launcher::nodes_changed, [launcher] {
    static QStringList shown;
    const QList<NodeState> nodes = launcher->nodes();
    for (int i = 0; i < nodes.size(); ++i) {
      const QString line = QStringLiteral("%1: %2%3").arg(nodes[i].name, nodes[i].state, nodes[i].detail.isEmpty() ? QString() : QStringLiteral(" (") + nodes[i].detail + QLatin1Char(')'));
      if (shown.value(i) == line) continue;
      while (shown.size() <= i) shown << QString();
      shown[i] = line;
      say(QStringLiteral("[node] ") + line);
    }
  });
  QObject::connect(launcher, &Launcher::stderr_text, [quiet](const QString& line) {
    if (!quiet || line.contains(QStringLiteral("error"), Qt::CaseInsensitive) || line.contains(QStringLiteral("warn"), Qt::CaseInsensitive))
      std::fprintf(stderr, "%s\n", qPrintable(line));
  });
  QObject::connect(model, &RunModel::run_started, [model] {
    say(QStringLiteral("run %1: %2, world size %3, %4 steps").arg(model->run_dir(), model->task()).arg(model->world_size()).arg(model->total_steps()));
  });
  QObject::connect(model, &RunModel::metric_appended, [model, quiet](const QString& name, int first_new) {
    if (quiet && !name.startsWith(QStringLiteral("val/"))) return;
    const auto& series = model->series(name);
    for (int i = first_new; i < series.size(); ++i)
      say(QStringLiteral("step %1/%2  %3 = %4").arg(series[i].step).arg(model->total_steps()).arg(name).arg(series[i].value, 0, 'g', 6));
  });
  QObject::connect(launcher, &Launcher::finished, [model](int code, RunStatus status) {
    say(QStringLiteral("%1 (exit code %2)%3").arg(to_string(status)).arg(code)
            .arg(model->failure_message().isEmpty() ? QString() : QStringLiteral(": ") + model->failure_message()));
    const int exit_code = status == RunStatus::finished ? 0 : status == RunStatus::stopped ? 143 : 1;
    QCoreApplication::exit(exit_code);
  });
}

// Acts on the interrupts on_interrupt counts, every 100 ms (a signal handler
// may only count): the first stops the run, the second leaves it running.
void handle_interrupts(QTimer* interrupts, Launcher* launcher) {
  QObject::connect(interrupts, &QTimer::timeout, [launcher, handled = 0]() mutable {
    const int now = g_interrupts.load();
    if (now == handled) return;
    handled = now;
    if (now == 1) {
      say(QStringLiteral("stopping the run on every node (checkpoint first); Ctrl-C again to leave it running"));
      launcher->stop();
    } else {
      const LaunchRecord& r = *launch_record_of(*launcher);
      say(QStringLiteral("leaving the run running; follow it again with: medsynth run --attach %1/%2").arg(default_launch_records_dir(), r.file_name()));
      QCoreApplication::exit(130);
    }
  });
  interrupts->start(100);
}

void launch_or_reattach(Launcher& launcher, bool attach, const std::optional<LaunchRecord>& record,
                        const LaunchRequest& request, const ClusterSpec& cluster) {
  if (attach) {
    reattach(launcher, *record);
  } else {
    launcher.start(request);
    const LaunchRecord& r = *launch_record_of(launcher);
    if (!r.launch_id.isEmpty())
      say(QStringLiteral("launch %1 on %2 (%3); record %4/%5")
              .arg(r.launch_id, cluster.name, to_string(cluster.kind), default_launch_records_dir(), r.file_name()));
  }
}

}  // namespace

int run_cluster_command(const QStringList& arguments) {
  QCommandLineParser p;
  add_options(p);
  if (!p.parse(QStringList{QStringLiteral("medsynth run")} + arguments)) {
    complain(p.errorText());
    return 2;
  }
  if (p.isSet(QStringLiteral("help"))) {
    std::fputs(qPrintable(cluster_run_help()), stdout);
    return 0;
  }
  const bool attach = p.isSet(QStringLiteral("attach"));
  std::optional<LaunchRecord> record;
  QString error;
  std::optional<ClusterSpec> cluster = cluster_of_command(p, attach, &record, &error);
  if (!cluster) {
    complain(error);
    return 2;
  }
  LaunchRequest request;
  if (!attach && !read_launch_request(p, *cluster, &request)) return 2;
  if (cluster->kind == ClusterKind::kubernetes) {
    if (!p.isSet(QStringLiteral("k8s-manifest"))) {
      complain(QStringLiteral(
                   "cluster %1 is kind: kubernetes: the console writes its manifests (--k8s-manifest FILE) for kubectl")
                   .arg(cluster->name));
      return 2;
    }
    return export_manifest(*cluster, request, p.value(QStringLiteral("k8s-manifest")));
  }

  TerminalAuthDelegate delegate(p.isSet(QStringLiteral("accept-new-host-keys")));
  const std::unique_ptr<Launcher> launcher = make_launcher(&*cluster, &delegate);
  print_progress(launcher.get(), p.isSet(QStringLiteral("quiet")));

  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
  QTimer interrupts;
  handle_interrupts(&interrupts, launcher.get());

  QTimer::singleShot(0, [&] { launch_or_reattach(*launcher, attach, record, request, *cluster); });
  return QCoreApplication::exec();
}

}  // namespace medsynth::app
