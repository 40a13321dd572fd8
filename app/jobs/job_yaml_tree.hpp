// A job document as a plain QVariant tree (QVariantMap sections, QVariantList
// arrays, bool/qint64/double/QString scalars, nullptr for null), parsed with
// yaml-cpp (JSON is YAML). JobDocument reads field values from it and, when a
// text edit is impossible (JSON, flow-style sections), edits it and writes it
// back in the schema's key order. Internal to medsynth_app.
#pragma once

#include <QString>
#include <QStringList>
#include <QVariant>
#include <QVariantMap>
#include <optional>

namespace medsynth::app {

// nullopt (and *error) when the text is not YAML or its root is not a mapping.
std::optional<QVariantMap> parse_job_tree(const QString& text, QString* error = nullptr);

// The value at path; *found = false when a key on the way is missing.
QVariant tree_value(const QVariantMap& root, const QStringList& path, bool* found);
// Sets (creating sections) or, for an invalid QVariant, removes the key.
void set_tree_value(QVariantMap& root, const QStringList& path, const QVariant& value);

// Block-style YAML, keys in schema order (unknown keys after, alphabetically).
QString tree_to_yaml(const QVariantMap& root);
// Indented JSON (nulls kept).
QString tree_to_json(const QVariantMap& root);

// A null value in the tree (`target_spacing: null`).
QVariant null_value();
bool is_null_value(const QVariant& v);

}  // namespace medsynth::app
