// The seeds' command-line flags (the five Python workflows medsynth replaces:
// MAISI, Fast-DDPM 3D BraTS, the VQ-GAN, the KL autoencoder, the survival
// ResNet), each with what takes its place here: most are job fields given as
// overrides (`train JOB training.max_steps=5`), a few are launch's flags. A
// user typing the flag they know gets this instead of CLI11's "extra
// arguments" (issue 53 item 10). The per-seed tables of docs/maisi.md,
// docs/autoencoder.md, docs/translation.md and docs/survival.md say more.
#pragma once

#include <optional>
#include <string>

namespace medsynth::cli {

// What replaces `flag` ("--num-steps", as typed, without "=value"), or none
// for a flag no seed has.
std::optional<std::string> seed_flag_replacement(const std::string& flag);

}  // namespace medsynth::cli
