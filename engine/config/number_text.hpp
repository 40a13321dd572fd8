// Text for doubles: the shortest spelling that reads back to the same bits. Used
// by the YAML writer (so a resolved job.yaml round-trips exactly) and by the
// validation messages ("must be > 0 (got -0.001)"). Internal to medsynth_config.
#pragma once

#include <string>

namespace medsynth {

// Shortest round-trip digits in %g style, e.g. 0.0001, 1e-07, 64, nan, inf.
std::string short_number(double value);

// As a YAML 1.1/1.2 float that every YAML reader types as a float, not a string
// or an int: always has a '.', a signed exponent, or is .nan / .inf / -.inf.
std::string yaml_number(double value);

}  // namespace medsynth
