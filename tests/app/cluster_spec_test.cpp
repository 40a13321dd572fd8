// Cluster files (strict reading, secrets refused, errors naming the field),
// the sbatch script, the Kubernetes manifest, and the detached-node commands
// of remote_node.hpp run for real through /bin/sh on this machine (start,
// status, reading from an offset, SIGTERM, SIGKILL of the whole session).
#include <yaml-cpp/yaml.h>

#include <QTemporaryDir>
#include <QTest>
#include <QElapsedTimer>
#include <QThread>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "app/cluster/cluster_spec.hpp"
#include "app/cluster/command_shell.hpp"
#include "app/cluster/k8s_manifest.hpp"
#include "app/cluster/launch_record.hpp"
#include "app/cluster/remote_node.hpp"
#include "app/cluster/sbatch_script.hpp"
#include "app/cluster/ssh_shell.hpp"
#include "app/launch/launch_request.hpp"
#include "app_test_support.hpp"
#include "cluster_test_support.hpp"

using namespace medsynth::app;
using namespace medsynth::app::test;

namespace {
const char* k_ssh_cluster = R"(name: lab
kind: ssh
known_hosts: /tmp/kh
master_port: 29400
hosts:
  - {name: a, address: 10.0.0.1, user: me, work_dir: /scratch/me}
  - {name: b, address: 10.0.0.2, port: 2222, work_dir: /scratch/me, engine: /opt/medsynth/bin/medsynth-engine, cluster_address: 192.168.0.2}
)";

QString parse_error(const QString& text) {
  QString error;
  const auto spec = parse_cluster_yaml(text, QStringLiteral("c.yaml"), &error);
  return spec ? QString() : error;
}
}  // namespace

class ClusterSpecTest : public QObject {
  Q_OBJECT

 private slots:
  void readsAnSshClusterAndWritesItBack() {
    QString error;
    const auto spec = parse_cluster_yaml(QString::fromLatin1(k_ssh_cluster), QStringLiteral("c.yaml"), &error);
    QVERIFY2(spec, qPrintable(error));
    QCOMPARE(spec->hosts.size(), 2);
    QCOMPARE(spec->hosts[0].port, 0);  // not written: the ssh config's Port, else 22
    QCOMPARE(spec->hosts[0].endpoint(), QStringLiteral("me@10.0.0.1"));
    QCOMPARE(spec->hosts[1].rendezvous_address(), QStringLiteral("192.168.0.2"));
    QCOMPARE(spec->hosts[0].rendezvous_address(), QStringLiteral("10.0.0.1"));
    QCOMPARE(spec->hosts[1].endpoint(), QStringLiteral("%1@10.0.0.2:2222").arg(qEnvironmentVariable("USER", QStringLiteral("root"))));
    const auto again = parse_cluster_yaml(cluster_to_yaml(*spec), QStringLiteral("round trip"), &error);
    QVERIFY2(again, qPrintable(error));
    QCOMPARE(cluster_to_yaml(*again), cluster_to_yaml(*spec));
    QCOMPARE(again->hosts[1].engine, QStringLiteral("/opt/medsynth/bin/medsynth-engine"));
  }

  void anSshConfigFileIsKeptAndMustExist() {
    QTemporaryDir temp;
    const QString config = temp.filePath(QStringLiteral("site_ssh_config"));
    QVERIFY(write_all(config, "Host gpu*\n  ProxyJump login.site\n"));
    QString error;
    const auto spec = parse_cluster_yaml(QString::fromLatin1(k_ssh_cluster) + QStringLiteral("ssh_config: %1\n").arg(config), QStringLiteral("c.yaml"), &error);
    QVERIFY2(spec, qPrintable(error));
    QCOMPARE(spec->ssh_config_path(), config);
    QCOMPARE(SshConnectOptions::for_cluster(*spec).ssh_config, config);
    const auto again = parse_cluster_yaml(cluster_to_yaml(*spec), QStringLiteral("round trip"), &error);
    QVERIFY2(again, qPrintable(error));
    QCOMPARE(again->ssh_config, config);
    const QString e = parse_error(QString::fromLatin1(k_ssh_cluster) + QStringLiteral("ssh_config: %1/gone\n").arg(temp.path()));
    QVERIFY2(e.contains(QStringLiteral("c.yaml: ssh_config: %1/gone does not exist").arg(temp.path())), qPrintable(e));
  }

  void refusesSecretsUnknownFieldsAndBadValuesNamingTheField() {
    const QString base = QString::fromLatin1(k_ssh_cluster);
    QString e = parse_error(base + QStringLiteral("password: hunter2\n"));
    QVERIFY2(e.contains(QStringLiteral("c.yaml: password: passwords and passphrases are never stored")), qPrintable(e));
    e = parse_error(QString(base).replace(QStringLiteral("user: me"), QStringLiteral("user: me, passphrase: x")));
    QVERIFY2(e.contains(QStringLiteral("hosts[0].passphrase: passwords")), qPrintable(e));
    e = parse_error(base + QStringLiteral("master_prot: 1\n"));
    QVERIFY2(e.contains(QStringLiteral("master_prot: unknown field")), qPrintable(e));
    e = parse_error(QString(base).replace(QStringLiteral("port: 2222"), QStringLiteral("port: 0")));
    QVERIFY2(e.contains(QStringLiteral("hosts[1].port: must be 1..65535 (got 0)")), qPrintable(e));
    e = parse_error(QString(base).replace(QStringLiteral("port: 2222"), QStringLiteral("port: many")));
    QVERIFY2(e.contains(QStringLiteral("hosts[1].port: must be a whole number (got 'many')")), qPrintable(e));
    e = parse_error(QString(base).replace(QStringLiteral("work_dir: /scratch/me}"), QStringLiteral("work_dir: scratch}")));
    QVERIFY2(e.contains(QStringLiteral("hosts[0].work_dir: must be an absolute path")), qPrintable(e));
    e = parse_error(QString(base).replace(QStringLiteral("name: b,"), QStringLiteral("name: a,")));
    QVERIFY2(e.contains(QStringLiteral("hosts[1].name: 'a' is used twice")), qPrintable(e));
    e = parse_error(QStringLiteral("name: x\nkind: pbs\n"));
    QVERIFY2(e.contains(QStringLiteral("kind: must be ssh, slurm or kubernetes (got 'pbs')")), qPrintable(e));
    e = parse_error(QStringLiteral("name: x\nkind: slurm\nslurm: {work_dir: /w, time: soon}\n"));
    QVERIFY2(e.contains(QStringLiteral("slurm.time: 'soon' is not a SLURM time")), qPrintable(e));
    e = parse_error(QStringLiteral("name: x\nkind: kubernetes\nkubernetes: {image: img, nodes: 2}\n"));
    QVERIFY2(e.contains(QStringLiteral("kubernetes.runs_claim")), qPrintable(e));
  }

  // Issue 19.1: a section or entry of the wrong shape threw YAML::InvalidNode
  // or TypedBadConversion outside any try block, and the console and
  // `medsynth run --cluster` died with SIGABRT. Each must name the field.
  void sectionsAndEntriesOfTheWrongShapeAreErrorsNamingTheField() {
    const struct {
      const char* yaml;
      const char* expected;
    } cases[] = {
        {"name: x\nkind: slurm\nslurm: 5\n", "c.yaml: slurm: must be a map (login_host:, nodes:, ...)"},
        {"name: x\nkind: slurm\nslurm: [a]\n", "c.yaml: slurm: must be a map"},
        {"name: x\nkind: slurm\nslurm: {work_dir: /w, extra_directives: [{a: b}]}\n", "c.yaml: slurm.extra_directives[0]: must be a text"},
        {"name: x\nkind: slurm\nslurm: {work_dir: /w, extra_directives: [--qos=high, [x]]}\n", "slurm.extra_directives[1]: must be a text"},
        {"name: x\nkind: kubernetes\nkubernetes: [image]\n", "c.yaml: kubernetes: must be a map"},
        {"name: x\nhosts: [{[a]: b}]\n", "c.yaml: hosts[0]: a field name must be a text"},
        {"name: x\n[a, b]: 1\n", "c.yaml: a field name must be a text"},
        {"name: x\nhosts: {a: b}\n", "c.yaml: hosts: must be a list"},
    };
    for (const auto& c : cases) {
      const QString e = parse_error(QString::fromLatin1(c.yaml));
      QVERIFY2(e.contains(QString::fromLatin1(c.expected)), qPrintable(QStringLiteral("%1\n-> %2").arg(QString::fromLatin1(c.yaml), e)));
    }
    // An empty section is as if it were absent, as an empty job section is.
    QVERIFY2(parse_error(QString::fromLatin1(k_ssh_cluster) + QStringLiteral("kubernetes:\n")).isEmpty(),
             qPrintable(parse_error(QString::fromLatin1(k_ssh_cluster) + QStringLiteral("kubernetes:\n"))));
  }

  void sbatchScriptAsksForTheSignalRequeueAndOneTaskPerGpu() {
    QString error;
    const auto spec = parse_cluster_yaml(QStringLiteral("name: hpc\nkind: slurm\nslurm: {nodes: 4, tasks_per_node: 4, gpus_per_node: 4, "
                                                        "partition: gpu, time: '2-00:00:00', work_dir: /w, engine: /opt/m/medsynth-engine, "
                                                        "extra_directives: [--qos=high]}\n"),
                                         QStringLiteral("s.yaml"), &error);
    QVERIFY2(spec, qPrintable(error));
    LaunchRequest r;
    r.job_file = QStringLiteral("/home/me/job.yaml");
    r.overrides = {QStringLiteral("training.lr=1e-4"), QStringLiteral("name=it's")};
    r.data_path = QStringLiteral("/data/ct");
    const QString s = sbatch_script(*spec, r, {QStringLiteral("/w/.medsynth/launches/L"), QStringLiteral("medsynth-job"), QStringLiteral("L")});
    for (const QString line : {QStringLiteral("#SBATCH --nodes=4"), QStringLiteral("#SBATCH --ntasks-per-node=4"),
                               QStringLiteral("#SBATCH --gpus-per-node=4"), QStringLiteral("#SBATCH --partition=gpu"),
                               QStringLiteral("#SBATCH --time=2-00:00:00"), QStringLiteral("#SBATCH --signal=USR1@90"),
                               QStringLiteral("#SBATCH --requeue"), QStringLiteral("#SBATCH --open-mode=append"),
                               QStringLiteral("#SBATCH --qos=high"), QStringLiteral("#SBATCH --output=/w/.medsynth/launches/L/slurm-%j.out")})
      QVERIFY2(s.contains(line + QLatin1Char('\n')), qPrintable(line + QStringLiteral(" missing in\n") + s));
    QVERIFY2(s.contains(QStringLiteral("exec srun --kill-on-bad-exit=1 /opt/m/medsynth-engine train /w/.medsynth/launches/L/job.yaml "
                                       "training.lr=1e-4 'name=it'\\''s' --no-progress --runs-dir /w/.medsynth/launches/L/runs --data /data/ct")),
             qPrintable(s));
    QVERIFY(!s.contains(QStringLiteral("MASTER_PORT")));  // derived from the job id
    // Issue 19.4: a job file named with a newline must not add a script line.
    const QString named = sbatch_script(*spec, r, {QStringLiteral("/w/L"), QStringLiteral("medsynth-a\n#SBATCH --wrap=x y"), QStringLiteral("L")});
    QVERIFY2(named.contains(QStringLiteral("#SBATCH --job-name=medsynth-a__SBATCH_--wrap_x_y\n")), qPrintable(named));
    QVERIFY(!named.contains(QStringLiteral("\n#SBATCH --wrap")));
  }

  // Issue 19.4: partition, account and work_dir went unchecked into #SBATCH
  // lines, so a newline in them added a line to the batch script.
  void sbatchFieldsThatWouldAddAScriptLineAreRefused() {
    const QString head = QStringLiteral("name: x\nkind: slurm\n");
    QString e = parse_error(head + QStringLiteral("slurm: {work_dir: /w, partition: \"gpu\\n#SBATCH --wrap=touch\"}\n"));
    QVERIFY2(e.contains(QStringLiteral("slurm.partition: 'gpu\n#SBATCH --wrap=touch' is not a partition name")), qPrintable(e));
    e = parse_error(head + QStringLiteral("slurm: {work_dir: /w, account: \"lab x\"}\n"));
    QVERIFY2(e.contains(QStringLiteral("slurm.account: 'lab x' is not an account name")), qPrintable(e));
    e = parse_error(head + QStringLiteral("slurm: {work_dir: \"/w\\n#SBATCH --wrap=touch\"}\n"));
    QVERIFY2(e.contains(QStringLiteral("slurm.work_dir: must not contain spaces or control characters")), qPrintable(e));
    e = parse_error(head + QStringLiteral("hosts: [{name: login, address: h, work_dir: \"/s/a b\"}]\nslurm: {login_host: login}\n"));
    QVERIFY2(e.contains(QStringLiteral("hosts: login's work_dir must not contain spaces")), qPrintable(e));
    QVERIFY2(parse_error(head + QStringLiteral("slurm: {work_dir: /w, partition: \"gpu,gpu-long\", account: proj_1.a}\n")).isEmpty(),
             qPrintable(parse_error(head + QStringLiteral("slurm: {work_dir: /w, partition: \"gpu,gpu-long\", account: proj_1.a}\n"))));
  }

  // Issue 19.3: --data and --resume of a cluster launch were looked up on the
  // console's machine, so a path that exists only on the cluster was refused.
  void clusterPathsAreCheckedOnTheNodesNotOnThisMachine() {
    QTemporaryDir temp;
    const QString job = temp.filePath(QStringLiteral("job.yaml"));
    write_all(job, "name: t\n");
    LaunchRequest r;
    r.job_file = job;
    r.data_path = QStringLiteral("/scratch/only-on-the-cluster/ct");
    r.resume_run_dir = QStringLiteral("/scratch/only-on-the-cluster/runs/r1");
    QCOMPARE(r.validate().size(), 2);  // local: neither exists here
    QVERIFY2(r.validate().join(QLatin1Char('\n')).contains(QStringLiteral("data_path: /scratch/only-on-the-cluster/ct: no such folder")),
             qPrintable(r.validate().join(QLatin1Char('\n'))));
    r.paths_on_nodes = true;
    QVERIFY2(r.validate().isEmpty(), qPrintable(r.validate().join(QLatin1Char('\n'))));
    r.data_path = QStringLiteral("data/ct");
    QVERIFY2(r.validate().join(QLatin1Char('\n')).contains(QStringLiteral("data_path: data/ct: must be an absolute path on the nodes")),
             qPrintable(r.validate().join(QLatin1Char('\n'))));
    r.job_file = temp.filePath(QStringLiteral("missing.yaml"));  // the job file is read here and uploaded
    QVERIFY(r.validate().join(QLatin1Char('\n')).contains(QStringLiteral("job_file:")));
  }

  // RELIABILITY: an unreachable host fails within the cluster's
  // connect_timeout_s. Two local stand-ins for a black hole, no root needed:
  // a port whose accept queue is full (the kernel drops further SYNs, as a
  // firewall that drops packets does) and a server that accepts and never
  // sends its SSH banner (a hung host).
  void anUnreachableHostFailsWithinItsConnectTimeout() {
    if (!SshShell::libssh_supported()) QSKIP("libssh too old for SshShell (PLATFORM-NOTES.md)");
    auto listener = [](int backlog) {
      const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in a{};
      a.sin_family = AF_INET;
      a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      socklen_t len = sizeof(a);
      if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&a), len) != 0 || ::listen(fd, backlog) != 0 ||
          ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0)
        return std::pair{-1, 0};
      return std::pair{fd, static_cast<int>(ntohs(a.sin_port))};
    };
    auto fill_queue = [](int port) {
      const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in a{};
      a.sin_family = AF_INET;
      a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      a.sin_port = htons(static_cast<uint16_t>(port));
      ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
      return fd;
    };
    const auto [full, full_port] = listener(0);
    const auto [silent, silent_port] = listener(16);
    QVERIFY(full >= 0 && silent >= 0);
    const int queued = fill_queue(full_port);
    QTemporaryDir temp;
    for (const int port : {full_port, silent_port}) {
      ClusterHost host;
      host.address = QStringLiteral("127.0.0.1");
      host.port = port;
      host.user = QStringLiteral("nobody");
      SshConnectOptions o;
      o.known_hosts = temp.filePath(QStringLiteral("known_hosts"));
      o.timeout_s = 2;
      QString error;
      QElapsedTimer clock;
      clock.start();
      const auto shell = SshShell::connect(host, o, &error);
      const qint64 ms = clock.elapsed();
      QVERIFY(!shell);
      QVERIFY2(error.contains(QStringLiteral("127.0.0.1")), qPrintable(error));
      // The bound is the point (a black hole must not hang the console), not a speed.
      QVERIFY2(ms < 12000, qPrintable(QStringLiteral("port %1: gave up after %2 ms: %3").arg(port).arg(ms).arg(error)));
    }
    ::close(queued);
    ::close(full);
    ::close(silent);
  }

  void kubernetesManifestIsAnIndexedJobWithARendezvousService() {
    QString error;
    const auto spec = parse_cluster_yaml(QStringLiteral("name: k\nkind: kubernetes\nkubernetes: {image: reg/medsynth:0.1, nodes: 2, gpus_per_node: 4, "
                                                        "runs_claim: runs-rwx, data_claim: ct-data}\n"),
                                         QStringLiteral("k.yaml"), &error);
    QVERIFY2(spec, qPrintable(error));
    LaunchRequest r;
    r.job_file = QStringLiteral("fast_ddpm.yaml");
    r.max_restarts = 2;
    const QString text = kubernetes_manifest(*spec, r, QStringLiteral("Fast DDPM"), QStringLiteral("name: fast\ntask: ldm\n"));
    const auto docs = YAML::LoadAll(text.toStdString());
    QCOMPARE(docs.size(), std::size_t(3));
    QCOMPARE(docs[0]["kind"].as<std::string>(), std::string("ConfigMap"));
    QCOMPARE(docs[0]["data"]["job.yaml"].as<std::string>(), std::string("name: fast\ntask: ldm\n"));
    QCOMPARE(docs[1]["spec"]["clusterIP"].as<std::string>(), std::string("None"));
    const YAML::Node job = docs[2];
    QCOMPARE(job["metadata"]["name"].as<std::string>(), std::string("medsynth-fast-ddpm"));
    QCOMPARE(job["spec"]["completionMode"].as<std::string>(), std::string("Indexed"));
    QCOMPARE(job["spec"]["completions"].as<int>(), 2);
    QCOMPARE(job["spec"]["backoffLimit"].as<int>(), 2);
    const YAML::Node pod = job["spec"]["template"]["spec"];
    QCOMPARE(pod["subdomain"].as<std::string>(), std::string("medsynth-fast-ddpm"));
    const YAML::Node c = pod["containers"][0];
    QCOMPARE(c["resources"]["limits"]["nvidia.com/gpu"].as<int>(), 4);
    std::vector<std::string> cmd = c["command"].as<std::vector<std::string>>();
    const QStringList command = [&] { QStringList l; for (auto& x : cmd) l << QString::fromStdString(x); return l; }();
    QVERIFY2(command.join(' ').contains(QStringLiteral("launch --nnodes 2 --node-rank $(JOB_COMPLETION_INDEX) --master-addr "
                                                       "medsynth-fast-ddpm-0.medsynth-fast-ddpm --master-port 29500 --nproc-per-node 4")),
             qPrintable(command.join(' ')));
    QVERIFY(command.contains(QStringLiteral("auto")));
    QCOMPARE(pod["volumes"][1]["persistentVolumeClaim"]["claimName"].as<std::string>(), std::string("runs-rwx"));
  }

  void shellQuotingSurvivesTheShell() {
    LocalShell sh;
    for (const QString word : {QStringLiteral("plain"), QStringLiteral("it's"), QStringLiteral("a b  c"), QStringLiteral("$HOME `x` \"q\" \\")}) {
      const ShellResult r = sh.run(QStringLiteral("printf %s ") + shell_quote(word));
      QCOMPARE(QString::fromUtf8(r.out), word);
    }
  }

  // Issue 19.9: a command's output was kept whole (QProcess buffered it all).
  // 200 MiB on stdout and 8 MiB on stderr now leave the caps in memory, the
  // rest counted, and the command still ends normally.
  void aCommandsOutputIsCappedNotKeptWhole() {
    LocalShell sh;
    const ShellResult r = sh.run(QStringLiteral("head -c 8388608 /dev/zero >&2; head -c 209715200 /dev/zero; echo done >&2"), {}, 120000);
    QVERIFY2(r.ok(), qPrintable(r.problem()));
    QCOMPARE(r.out.size(), k_max_shell_stdout_bytes);
    QCOMPARE(r.err.size(), k_max_shell_stderr_bytes);
    QCOMPARE(r.discarded_bytes, qint64{209715200} - k_max_shell_stdout_bytes + qint64{8388608} + 5 - k_max_shell_stderr_bytes);
  }

  void detachedNodeStartsReportsReadsFromOffsetsAndStops() {
    QTemporaryDir temp;
    LocalShell sh;
    const QString dir = temp.filePath(QStringLiteral("launch/node0"));
    // A stand-in engine: a shell that prints lines, exits 143 on SIGTERM.
    NodeCommand c{dir, temp.path(), QStringLiteral("/bin/sh"),
                  {QStringLiteral("-c"), QStringLiteral("trap 'echo bye; exit 143' TERM; i=0; while :; do echo line$i; i=$((i+1)); sleep 0.05; done")},
                  QStringLiteral("testlaunch")};
    QByteArray input;
    QVERIFY(sh.run(upload_command(dir, node_wrapper_script(c).toUtf8(), QByteArray("name: x\n"), &input), input).ok());
    QCOMPARE(read_all(dir + QStringLiteral("/job.yaml")), QByteArray("name: x\n"));
    const ShellResult started = sh.run(start_command(dir));
    QVERIFY2(started.ok(), qPrintable(started.problem()));
    NodeStatus st = parse_node_status(sh.run(status_command(dir)).out);
    QCOMPARE(st.state, NodeStatus::State::running);
    QCOMPARE(QByteArray::number(st.pid), started.out.trimmed());

    // Reading from offsets: the concatenation of chunks is the file, whatever the chunk size.
    QTRY_VERIFY(read_all(dir + QStringLiteral("/out")).size() > 40);
    QByteArray got;
    qint64 offset = 0;
    bool lost = false;
    QVERIFY(read_new_bytes(sh, dir + QStringLiteral("/out"), &offset, 7, [&](const QByteArray& b) { got += b; }, &lost));
    QVERIFY(got.size() >= 40 && got.startsWith("line0\nline1\n"));
    QCOMPARE(offset, got.size());
    QCOMPARE(read_all(dir + QStringLiteral("/out")).left(got.size()), got);

    QVERIFY(sh.run(terminate_command(dir)).ok());
    QTRY_COMPARE(parse_node_status(sh.run(status_command(dir)).out).state, NodeStatus::State::exited);
    st = parse_node_status(sh.run(status_command(dir)).out);
    QCOMPARE(st.exit_code, 143);
    QVERIFY(read_new_bytes(sh, dir + QStringLiteral("/out"), &offset, 1 << 20, [&](const QByteArray& b) { got += b; }, &lost));
    QVERIFY(got.endsWith("bye\n"));
    QCOMPARE(got, read_all(dir + QStringLiteral("/out")));
  }

  void killEndsAnEngineThatIgnoresSigterm() {
    QTemporaryDir temp;
    LocalShell sh;
    const QString dir = temp.filePath(QStringLiteral("node0"));
    NodeCommand c{dir, temp.path(), QStringLiteral("/bin/sh"),
                  {QStringLiteral("-c"), QStringLiteral("trap '' TERM; sleep 311 & wait; sleep 311")}, QStringLiteral("stubborn")};
    QByteArray input;
    QVERIFY(sh.run(upload_command(dir, node_wrapper_script(c).toUtf8(), {}, &input), input).ok());
    QVERIFY(sh.run(start_command(dir)).ok());
    QTRY_VERIFY(!processes_matching(QStringLiteral("sleep 311")).isEmpty());
    QVERIFY(!processes_matching(dir + QStringLiteral("/run.sh")).isEmpty());  // the wrapper
    QVERIFY(sh.run(terminate_command(dir)).ok());
    QTest::qWait(300);
    QCOMPARE(parse_node_status(sh.run(status_command(dir)).out).state, NodeStatus::State::running);
    QVERIFY(sh.run(kill_command(dir)).ok());
    QTRY_VERIFY(parse_node_status(sh.run(status_command(dir)).out).state != NodeStatus::State::running);
    // The whole session is gone: the engine's own children too.
    QTRY_VERIFY(processes_matching(QStringLiteral("sleep 311")).isEmpty());
    QTRY_VERIFY(processes_matching(dir + QStringLiteral("/run.sh")).isEmpty());
  }

  void shippedExampleClusterFilesAreValid() {
    for (const QString f : {QStringLiteral("two-nodes-ssh.yaml"), QStringLiteral("slurm-4x4.yaml"), QStringLiteral("kubernetes.yaml")}) {
      // key_file must exist to validate: point it at something that does.
      QString text = QString::fromUtf8(read_all(source_dir() + QStringLiteral("/resources/clusters/") + f));
      QVERIFY2(!text.isEmpty(), qPrintable(f));
      text.replace(QStringLiteral("~/.ssh/id_ed25519"), source_dir() + QStringLiteral("/README.md"));
      QString error;
      QVERIFY2(parse_cluster_yaml(text, f, &error), qPrintable(error));
    }
  }

  void launchRecordRoundTrips() {
    QTemporaryDir temp;
    QString error;
    LaunchRecord r;
    r.launch_id = new_launch_id();
    r.cluster = *parse_cluster_yaml(QString::fromLatin1(k_ssh_cluster), QStringLiteral("c"), &error);
    r.node_dirs = {QStringLiteral("/scratch/me/.medsynth/launches/x/node0"), QStringLiteral("/scratch/me/.medsynth/launches/x/node1")};
    r.job_name = QStringLiteral("quickstart");
    QVERIFY2(save_launch_record(r, temp.path(), &error), qPrintable(error));
    const auto back = load_launch_record(temp.filePath(r.file_name()), &error);
    QVERIFY2(back, qPrintable(error));
    QCOMPARE(back->node_dirs, r.node_dirs);
    QCOMPARE(cluster_to_yaml(back->cluster), cluster_to_yaml(r.cluster));
    write_all(temp.filePath(QStringLiteral("bad.json")), "{\"launch_id\": 3");
    QVERIFY(!load_launch_record(temp.filePath(QStringLiteral("bad.json")), &error));
    QVERIFY2(error.contains(QStringLiteral("bad.json: not a launch record")), qPrintable(error));
    // Issue 19.4: the job id goes into squeue/scancel command lines on reattach.
    r.slurm_job_id = QStringLiteral("1;touch $T/pwned #");
    QVERIFY2(save_launch_record(r, temp.path(), &error), qPrintable(error));
    QVERIFY(!load_launch_record(temp.filePath(r.file_name()), &error));
    QVERIFY2(error.contains(QStringLiteral("slurm_job_id: '1;touch $T/pwned #' is not a SLURM job id")), qPrintable(error));
    r.slurm_job_id = QStringLiteral("4242");
    QVERIFY2(save_launch_record(r, temp.path(), &error), qPrintable(error));
    QVERIFY2(load_launch_record(temp.filePath(r.file_name()), &error), qPrintable(error));
  }
};

QTEST_GUILESS_MAIN(ClusterSpecTest)
#include "cluster_spec_test.moc"
