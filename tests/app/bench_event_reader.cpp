// Benchmark (label bench, not run by CI): events/s through EventStreamReader
// into RunModel. 100 000 metric events over 5 series, plus a progress event
// every 5 metrics and a log event every 100, fed in 64 KiB chunks as a
// launcher's stdout would deliver them. Median of 5 runs after 2 warm-ups,
// printed as a Markdown table with the machine's CPU. No assertion on time.
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QSysInfo>
#include <QThread>
#include <algorithm>
#include <cstdio>
#include <vector>

#include "app/runs/event_stream_reader.hpp"
#include "app/runs/run_model.hpp"

using namespace medsynth::app;

namespace {

QString cpu_model() {
  QFile f(QStringLiteral("/proc/cpuinfo"));
  if (f.open(QIODevice::ReadOnly))
    for (const QByteArray& line : f.readAll().split('\n'))
      if (line.startsWith("model name")) return QString::fromUtf8(line.mid(line.indexOf(':') + 1)).trimmed();
  return QSysInfo::currentCpuArchitecture();
}

struct Stream {
  QByteArray bytes;
  qint64 events = 0;
  qint64 metrics = 0;
};

Stream make_stream(int metric_events) {
  static const char* names[] = {"train/loss", "train/recon_loss", "train/kl_loss", "lr", "throughput/vox_per_s"};
  Stream s;
  s.bytes.reserve(metric_events * 150);
  for (int i = 0; i < metric_events; ++i) {
    const int step = i / 5;
    s.bytes += R"({"v":1,"type":"metric","time":"2026-11-22T05:46:24.478Z","rank":0,"step":)" + QByteArray::number(step) +
               R"(,"name":")" + names[i % 5] + R"(","value":)" + QByteArray::number(1.0 / (1 + i), 'g', 17) + "}\n";
    ++s.metrics;
    ++s.events;
    if (i % 5 == 4) {
      s.bytes += R"({"v":1,"type":"progress","time":"2026-11-22T05:46:24.478Z","rank":0,"step":)" + QByteArray::number(step) +
                 R"(,"total_steps":20000,"epoch":1,"epochs":10,"samples_per_s":6.4,"eta_s":602.5})" "\n";
      ++s.events;
    }
    if (i % 100 == 99) {
      s.bytes += R"({"v":1,"type":"log","time":"2026-11-22T05:46:24.478Z","rank":0,"level":"warn","message":"step )" +
                 QByteArray::number(step) + R"(: non-finite loss, step skipped"})" "\n";
      ++s.events;
    }
  }
  return s;
}

double run_once(const Stream& s, qint64* signals_emitted) {
  RunModel model;
  qint64 emitted = 0;
  QObject::connect(&model, &RunModel::metric_appended, [&emitted](const QString&, int) { ++emitted; });
  EventStreamReader reader(&model);
  QElapsedTimer timer;
  timer.start();
  constexpr qsizetype chunk = 64 * 1024;
  for (qsizetype pos = 0; pos < s.bytes.size(); pos += chunk)
    reader.feed(QByteArrayView(s.bytes).sliced(pos, std::min(chunk, s.bytes.size() - pos)));
  reader.finish();
  const double seconds = timer.nsecsElapsed() / 1e9;
  if (model.series(QStringLiteral("train/loss")).size() != s.metrics / 5 || model.reader_stats().problems() != 0) {
    std::fprintf(stderr, "bench_event_reader: the model does not hold what was fed\n");
    std::exit(1);
  }
  *signals_emitted = emitted;
  return seconds;
}

}  // namespace

int main(int argc, char** argv) {
  QCoreApplication app(argc, argv);
  const Stream stream = make_stream(100000);
  qint64 signals_emitted = 0;
  for (int i = 0; i < 2; ++i) run_once(stream, &signals_emitted);  // warm-up
  std::vector<double> seconds;
  for (int i = 0; i < 5; ++i) seconds.push_back(run_once(stream, &signals_emitted));
  std::sort(seconds.begin(), seconds.end());
  const double median = seconds[2];
  std::printf("## EventStreamReader -> RunModel\n\n");
  std::printf("machine: %s, %d hardware threads, Qt %s\n\n", qPrintable(cpu_model()), QThread::idealThreadCount(), qVersion());
  std::printf("| events | of which metrics | bytes | chunk | median s (5 runs, 2 warm-ups) | events/s | metric events/s | MB/s | metric_appended signals per run |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|\n");
  std::printf("| %lld | %lld | %lld | 64 KiB | %.4f | %.0f | %.0f | %.1f | %lld |\n", static_cast<long long>(stream.events),
              static_cast<long long>(stream.metrics), static_cast<long long>(stream.bytes.size()), median, stream.events / median,
              stream.metrics / median, stream.bytes.size() / median / 1e6, static_cast<long long>(signals_emitted));
  std::printf("\nall runs (s):");
  for (double s : seconds) std::printf(" %.4f", s);
  std::printf("\n");
  return 0;
}
