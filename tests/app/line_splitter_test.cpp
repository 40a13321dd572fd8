// LineSplitter: lines across chunks, and a line without end held to its cap
// (issue 19.9: a worker printing 64 MiB without a newline grew the console's
// buffer by 64 MiB).
#include <QTest>

#include "app/launch/line_splitter.hpp"

using namespace medsynth::app;

class LineSplitterTest : public QObject {
  Q_OBJECT

 private slots:
  void linesAcrossChunks() {
    LineSplitter s;
    QCOMPARE(s.feed("ab"), QStringList{});
    QCOMPARE(s.feed("c\nde\n\nf"), (QStringList{QStringLiteral("abc"), QStringLiteral("de"), QString()}));
    QCOMPARE(s.buffered_bytes(), 1);
    QCOMPARE(s.finish(), QStringList{QStringLiteral("f")});
    QCOMPARE(s.finish(), QStringList{});
  }

  void a_line_without_end_is_held_to_its_cap_and_marked() {
    LineSplitter s(64 * 1024);
    const QByteArray chunk(64 * 1024, 'x');
    qsizetype most = 0;
    for (int i = 0; i < 1024; ++i) {  // 64 MiB without a newline
      QVERIFY(s.feed(chunk).isEmpty());
      most = std::max(most, s.buffered_bytes());
    }
    QCOMPARE(most, qsizetype(64 * 1024));
    const QStringList lines = s.feed("tail\nnext\n");
    QCOMPARE(lines.size(), 2);
    QCOMPARE(lines[0].size(), 64 * 1024 + QStringLiteral(" [... 67043332 more bytes of this line dropped]").size());
    QVERIFY2(lines[0].endsWith(QStringLiteral(" [... 67043332 more bytes of this line dropped]")), qPrintable(lines[0].right(80)));
    QCOMPARE(lines[1], QStringLiteral("next"));
    QCOMPARE(s.buffered_bytes(), 0);
  }
};

QTEST_GUILESS_MAIN(LineSplitterTest)
#include "line_splitter_test.moc"
