// libFuzzer harness: NV-Generate network config JSON reader.
//
// Feeds: the input bytes, unchanged, as the file config_network_rflow.json
// (written to a private scratch folder on /dev/shm) to
// medsynth::read_maisi_network_config (engine/config/maisi_network_config.cpp),
// which parses it through core/bounded_json.hpp (depth limit 64) and resolves
// MONAI "@key" / "$@key" references. This is the file `medsynth-engine
// import-maisi` takes from a downloaded NV-Generate folder.
//
// Expected outcomes: a MaisiNetworkConfig, or a medsynth::Error subclass
// (DataError naming the file: not JSON, too deep, unknown key, wrong type,
// unresolvable or cyclic reference, wrong _target_).
//
// Findings: any other exception escaping the reader (std::bad_alloc,
// nlohmann::json::exception, std::out_of_range, ...: the harness prints its
// type and aborts), a crash, a hang (-timeout), memory over -rss_limit_mb, and
// every AddressSanitizer / UndefinedBehaviorSanitizer report.
#include <cstddef>
#include <cstdint>

#include "config/maisi_network_config.hpp"
#include "core/error.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path = medsynth::fuzz::ScratchDir::instance().path("config_network_rflow.json");
  medsynth::fuzz::write_file(path, data, size);
  try {
    const medsynth::MaisiNetworkConfig config = medsynth::read_maisi_network_config(path);
    // Touch what was read, so that nothing is optimised away.
    volatile std::size_t sink = config.autoencoder.num_channels.size() + config.diffusion_unet.channels.size() +
                                static_cast<std::size_t>(config.scheduler.kind) + (config.controlnet ? 1u : 0u);
    (void)sink;
  } catch (const medsynth::Error&) {
    // Expected: the reader refused the file with a message naming it.
  } catch (...) {
    medsynth::fuzz::unexpected_exception("config_json_fuzzer", "read_maisi_network_config");
  }
  return 0;
}
