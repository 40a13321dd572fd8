// Lets clang 14 (Debian 12's, with libstdc++ 12 in C++20) compile code that
// uses medsynth::PickleValue::Dict (engine/weights/torch_archive.hpp). Without
// it clang 14 rejects the first use that completes
// std::pair<PickleValue, PickleValue> (dict.items.size(), rbegin(), a
// range-for): completing the pair instantiates ~PickleValue, hence the Dict's
// ~vector<pair<...>>, while the pair is still incomplete ("arithmetic on a
// pointer to an incomplete type"). GCC, which builds the project, accepts the
// code; it is a clang 14 problem, not an engine bug. Instantiating
// ~PickleValue first breaks the cycle. run.sh passes this file with -include
// to engine/weights/torch_archive_contents.cpp, and pickle_fuzzer.cpp includes it
// first.
#pragma once

#include "weights/torch_archive.hpp"

namespace medsynth::fuzz {

[[maybe_unused]] inline void instantiate_pickle_value_destructor(PickleValue& value) { value.~PickleValue(); }

}  // namespace medsynth::fuzz
