#include "volume/itk_version.hpp"

#include <itkVersion.h>

namespace medsynth {

std::string itk_version() { return itk::Version::GetITKVersion(); }

}  // namespace medsynth
