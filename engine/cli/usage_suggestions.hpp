// "did you mean" for the command line: a mistyped verb (`trian`) or flag
// (`--nproc-per-nod`) gets the closest one by name, as a mistyped job field
// does (config/did_you_mean.hpp); a seed's flag (`--num-steps`) gets what
// replaces it (cli/seed_flags.hpp); a verb given to launch that launch does
// not run gets where it runs. main() prints these in place of CLI11's own
// message when parsing fails, which then says less ("A subcommand is
// required" for `trian`).
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace medsynth::cli {

// "" when nothing in `args` (argv without the program) is a plausible typo;
// else one line per typo: "unknown verb 'trian'; did you mean 'train'?".
std::string usage_suggestions(const CLI::App& app, const std::vector<std::string>& args);

}  // namespace medsynth::cli
