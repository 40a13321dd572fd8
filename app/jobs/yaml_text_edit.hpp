// Editing one value of a YAML job file as text, so that the user's comments,
// key order and layout survive a change made in the form (yaml-cpp would
// re-emit the whole document without its comments). Handles the block-mapping
// style job files are written in; anything else (flow mappings as sections,
// JSON, multi-document files) returns nullopt and JobDocument falls back to
// editing the parsed tree. Internal to medsynth_app (JobDocument).
#pragma once

#include <QString>
#include <QStringList>
#include <optional>

namespace medsynth::app {

// Sets `path` (e.g. {"training", "lr"}) to value_text (YAML, already
// formatted: "3.0e-4", "[32, 32, 32]", "\"l1\""), inserting the key (and its
// sections) when absent; value_text == nullopt removes the key. Returns the
// new text, or nullopt when the document is not in a shape this can edit.
std::optional<QString> edit_yaml_value(const QString& text, const QStringList& path,
                                       const std::optional<QString>& value_text);

// The 1-based line of the key at `path`, or -1 (for issue markers in the editor).
int yaml_key_line(const QString& text, const QStringList& path);

}  // namespace medsynth::app
