// Precompiled header of medsynth_viewer: the Qt headers most of its files use.
// VTK headers stay out: autoinit definitions must see them per TU.
#pragma once

#include <QImage>
#include <QObject>
#include <QOpenGLWidget>
#include <QString>
#include <QStringList>
#include <QWidget>

#include <array>
#include <memory>
#include <optional>
#include <vector>
