// A line scanner for block-style YAML: which line holds which dotted key, and
// which lines belong to its value. Enough to replace, insert or remove one
// value without touching the rest of the text.
#include "app/jobs/yaml_text_edit.hpp"

#include <QRegularExpression>
#include <vector>

namespace medsynth::app {

namespace {

struct KeyLine {
  int line = 0;        // index into the lines
  int indent = 0;
  QStringList path;    // dotted path as a list
  QString raw_key;     // as written (quotes kept)
  QString rest;        // what follows "key:" (value and comment), trimmed
  int end = 0;         // one past the last line of its value (children included)
};

struct Scan {
  QStringList lines;
  std::vector<KeyLine> keys;
  bool ok = true;
};

bool is_blank_or_comment(const QString& line) {
  const QString t = line.trimmed();
  return t.isEmpty() || t.startsWith(QLatin1Char('#'));
}

int indent_of(const QString& line) {
  int i = 0;
  while (i < line.size() && line[i] == QLatin1Char(' ')) ++i;
  return i;
}

bool is_sequence_item(const QString& trimmed) {
  return trimmed == QLatin1String("-") || trimmed.startsWith(QLatin1String("- "));
}

QString unquote(const QString& key) {
  if (key.size() >= 2 && (key.front() == QLatin1Char('"') || key.front() == QLatin1Char('\'')) && key.back() == key.front())
    return key.mid(1, key.size() - 2);
  return key;
}

// The index where a trailing "# comment" starts in `rest` (outside quotes), or -1.
qsizetype comment_start(const QString& rest) {
  QChar quote;
  for (qsizetype i = 0; i < rest.size(); ++i) {
    const QChar c = rest[i];
    if (!quote.isNull()) {
      if (c == QLatin1Char('\\') && quote == QLatin1Char('"')) ++i;
      else if (c == quote) quote = QChar();
    } else if (c == QLatin1Char('"') || c == QLatin1Char('\'')) {
      quote = c;
    } else if (c == QLatin1Char('#') && (i == 0 || rest[i - 1].isSpace())) {
      return i;
    }
  }
  return -1;
}

Scan scan(const QString& text) {
  static const QRegularExpression key_pattern(
      QStringLiteral(R"(^([A-Za-z0-9_][A-Za-z0-9_.\-]*|"[^"]*"|'[^']*')[ \t]*:(?:[ \t]+(.*))?$)"));
  Scan s;
  s.lines = text.split(QLatin1Char('\n'));
  for (auto& l : s.lines)
    if (l.endsWith(QLatin1Char('\r'))) l.chop(1);
  std::vector<std::pair<int, QString>> stack;  // open sections: (indent, key)
  int value_owner_indent = -1;                 // > -1: lines deeper than this continue an inline value
  bool seen_content = false;
  for (int i = 0; i < s.lines.size(); ++i) {
    const QString& line = s.lines[i];
    if (is_blank_or_comment(line)) continue;
    const QString t = line.trimmed();
    if (t == QLatin1String("---") && !seen_content) continue;
    if (t == QLatin1String("---") || t == QLatin1String("...")) return s.ok = false, s;  // several documents
    if (line.startsWith(QLatin1Char('\t')) || line.contains(QLatin1String("\n\t"))) return s.ok = false, s;
    seen_content = true;
    const int indent = indent_of(line);
    if (value_owner_indent >= 0 && indent > value_owner_indent) continue;  // block scalar / flow continuation
    value_owner_indent = -1;
    if (is_sequence_item(t)) continue;  // items of the key above
    const auto m = key_pattern.match(t);
    if (!m.hasMatch()) {
      if (indent == 0 && (t.startsWith(QLatin1Char('{')) || t.startsWith(QLatin1Char('[')))) return s.ok = false, s;  // JSON/flow document
      continue;  // a continuation we do not need to understand
    }
    while (!stack.empty() && stack.back().first >= indent) stack.pop_back();
    KeyLine k;
    k.line = i;
    k.indent = indent;
    k.raw_key = m.captured(1);
    k.rest = m.captured(2).trimmed();
    for (const auto& [_, key] : stack) k.path << key;
    k.path << unquote(k.raw_key);
    const QString value = comment_start(k.rest) >= 0 ? k.rest.left(comment_start(k.rest)).trimmed() : k.rest;
    if (value.isEmpty())
      stack.emplace_back(indent, unquote(k.raw_key));
    else
      value_owner_indent = indent;
    s.keys.push_back(k);
  }
  // Where each key's value ends: the next content line at its indent or less
  // (a sequence item at the same indent still belongs to an empty-valued key).
  for (auto& k : s.keys) {
    const QString value = comment_start(k.rest) >= 0 ? k.rest.left(comment_start(k.rest)).trimmed() : k.rest;
    int end = k.line + 1, last_content = k.line;
    for (int j = k.line + 1; j < s.lines.size(); ++j) {
      const QString& line = s.lines[j];
      if (is_blank_or_comment(line)) continue;
      const int indent = indent_of(line);
      const bool same_level_item = indent == k.indent && value.isEmpty() && is_sequence_item(line.trimmed());
      if (indent <= k.indent && !same_level_item) break;
      last_content = j;
    }
    end = last_content + 1;
    k.end = end;
  }
  return s;
}

const KeyLine* find_key(const Scan& s, const QStringList& path) {
  for (const auto& k : s.keys)
    if (k.path == path) return &k;
  return nullptr;
}

}  // namespace

int yaml_key_line(const QString& text, const QStringList& path) {
  const Scan s = scan(text);
  if (!s.ok) return -1;
  const KeyLine* k = find_key(s, path);
  return k ? k->line + 1 : -1;
}

std::optional<QString> edit_yaml_value(const QString& text, const QStringList& path,
                                       const std::optional<QString>& value_text) {
  if (path.isEmpty()) return std::nullopt;
  Scan s = scan(text);
  if (!s.ok) return std::nullopt;
  QStringList& lines = s.lines;

  if (const KeyLine* k = find_key(s, path)) {
    // A section (it has keys below it) is not a value this edits.
    for (const auto& other : s.keys)
      if (other.path.size() > path.size() && other.path.mid(0, path.size()) == path) return std::nullopt;
    const qsizetype c = comment_start(k->rest);
    const QString comment = c >= 0 ? k->rest.mid(c) : QString();
    const int first = k->line, count = k->end - k->line;
    if (!value_text) {
      lines.remove(first, count);
    } else {
      QString line = QString(k->indent, QLatin1Char(' ')) + k->raw_key + QStringLiteral(": ") + *value_text;
      if (!comment.isEmpty()) line += QStringLiteral("  ") + comment;
      lines.remove(first, count);
      lines.insert(first, line);
    }
    return lines.join(QLatin1Char('\n'));
  }
  if (!value_text) return text;  // nothing to remove

  // Insert: below the deepest section of the path that exists.
  int depth = static_cast<int>(path.size()) - 1;
  const KeyLine* parent = nullptr;
  for (; depth > 0; --depth)
    if ((parent = find_key(s, path.mid(0, depth)))) break;
  int insert_at = 0;
  int indent = 0;
  if (parent) {
    const qsizetype c = comment_start(parent->rest);
    if (!(c >= 0 ? parent->rest.left(c).trimmed() : parent->rest).isEmpty()) return std::nullopt;  // `training: {…}` / null
    insert_at = parent->end;
    indent = parent->indent + 2;
    for (const auto& child : s.keys)
      if (child.line > parent->line && child.line < parent->end && child.path.size() == depth + 1) {
        indent = child.indent;  // follow the file's own indentation
        break;
      }
  } else {
    // At the end of the document, before trailing blank lines.
    insert_at = static_cast<int>(lines.size());
    while (insert_at > 0 && lines[insert_at - 1].trimmed().isEmpty()) --insert_at;
  }
  QStringList added;
  const int step = parent ? std::max(2, indent - parent->indent) : 2;
  for (int d = depth; d < path.size(); ++d) {
    const bool leaf = d == path.size() - 1;
    added << QString(indent, QLatin1Char(' ')) + path[d] + QLatin1Char(':') + (leaf ? QStringLiteral(" ") + *value_text : QString());
    indent += step;
  }
  for (int i = 0; i < added.size(); ++i) lines.insert(insert_at + i, added[i]);
  QString out = lines.join(QLatin1Char('\n'));
  return out;
}

}  // namespace medsynth::app
