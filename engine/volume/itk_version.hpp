// The ITK version this library was built with, for `medsynth-engine info`.
#pragma once

#include <string>

namespace medsynth {

std::string itk_version();

}  // namespace medsynth
