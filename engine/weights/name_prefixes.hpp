// Says a set of tensor names briefly: "layer1.*" for every name under layer1
// when all of them are in the set, the name itself otherwise. Used by
// partial_state_loading to report what was loaded, left or ignored in a
// sentence a person reads (a ResNet-50 has 300+ tensors).
#pragma once

#include <string>
#include <vector>

namespace medsynth {

// The fewest dotted prefixes ("layer1.*", "layer2.0.downsample.*") and names
// that cover `chosen` and no other name of `all` (which holds `chosen`), in
// sorted order.
std::vector<std::string> covering_prefixes(const std::vector<std::string>& chosen, const std::vector<std::string>& all);

}  // namespace medsynth
