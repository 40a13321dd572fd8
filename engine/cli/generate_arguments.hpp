// The arguments of `generate`, declared once: shared by the generate verb and
// by `launch ... generate` (which parses the same options, then hands each
// worker the rebuilt command line), as train_arguments.hpp does for train.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace medsynth::cli {

struct GenerateArguments {
  std::string run_dir, output_dir, label, data, quality_check;
  std::string inpaint, region;      // generate --inpaint CT --region MASK
  std::vector<int> region_classes;  // --region-classes 3,4: those labels of MASK
  int inpaint_margin = 2;
  std::vector<std::string> overrides;
  int num_images = -1;  // -1: generate.num_images
  int quality_tries = 2;
  std::int64_t base_seed = -1;  // -1: generate.base_seed
  bool json = false, overwrite = false;
};

void add_generate_options(CLI::App& cmd, GenerateArguments& a);

// The command line a worker of `launch ... generate` runs: "generate RUN ..."
// with every option that was given (files made absolute: workers may start
// in another folder).
std::vector<std::string> worker_generate_argv(const GenerateArguments& a);

}  // namespace medsynth::cli
