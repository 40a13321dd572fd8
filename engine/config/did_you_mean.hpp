// Spelling suggestions for unknown names ("batch_szie" -> "batch_size"). Used by
// the job reader and the override parser to turn an unknown key or enum value
// into a "did you mean 'x'?" hint; free of YAML so that the console can reuse it.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace medsynth {

// Optimal-string-alignment distance: Levenshtein plus swaps of two neighbours,
// because a swapped pair ("szie") is the most common typo in key names.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The closest candidate when it is close enough to be a plausible typo of `word`
// (distance at most a third of the word's length, at least 1, at most 3), or
// nothing. Ties keep the earliest candidate, so suggestions are deterministic.
std::optional<std::string> closest_match(std::string_view word, const std::vector<std::string>& candidates);

// "; did you mean 'x'?" or "" - appended to a reason.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace medsynth
