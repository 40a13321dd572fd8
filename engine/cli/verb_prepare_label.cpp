// `medsynth-engine prepare-label SEG --from totalsegmentator|vista3d|MAP.json
// --out OUT [--image CT] [--spacing X Y Z] [--size X Y Z] [--overwrite]`: a
// segmentation made ready for `generate RUN --label OUT`
// (data/label_preparation.hpp): MAISI CT classes, the body envelope, the
// generation grid, and what NV-Generate's CT networks expect of it.
#include <CLI/CLI.hpp>

#include <filesystem>
#include <iostream>
#include <memory>

#include "cli/verbs.hpp"
#include "core/error.hpp"
#include "data/label_preparation.hpp"
#include "data/label_vocabulary.hpp"
#include "volume/volume_io.hpp"

namespace medsynth::cli {

Action add_prepare_label_verb(CLI::App& app) {
  struct Args {
    std::string segmentation, out, image;
    LabelPreparationOptions options;
    std::vector<double> spacing;
    std::vector<std::size_t> size;
    bool overwrite = false;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("prepare-label",
                                 "Remap a segmentation to MAISI CT's classes, add the body envelope, "
                                 "resample it to the generation grid (for generate --label)");
  cmd->add_option("segmentation", a->segmentation,
                  "A label map (.nii.gz, ...): TotalSegmentator's, VISTA3D's or your own")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--from", a->options.from,
                  "totalsegmentator (v2, task total), vista3d, or a JSON map {\"id\": MAISI id or name}")
      ->required();
  cmd->add_option("--out", a->out, "The MAISI label map to write (.nii.gz)")->required();
  cmd->add_option("--image", a->image, "The CT the segmentation was made from: the body envelope follows its outline")
      ->check(CLI::ExistingFile);
  cmd->add_option("--spacing", a->spacing, "The generation grid's spacing, mm: x y z (NV-Generate: 0.5-3.0, z 0.5-5.0)")
      ->expected(3);
  cmd->add_option("--size", a->size,
                  "The generation grid's voxels: x y z, a centred crop or pad (NV-Generate: 256/384/512, z 128-768)")
      ->expected(3);
  cmd->add_flag("--overwrite", a->overwrite, "Replace --out when it exists");
  return [a] {
    // --overwrite replaced the segmentation itself with --out X on input X
    // (issue 50 item 10): an input is never replaced, whatever the flag says.
    for (const auto& [input, option] : {std::pair{a->segmentation, "the segmentation"}, {a->image, "--image"}}) {
      std::error_code ec;
      if (!input.empty() && std::filesystem::equivalent(input, a->out, ec))
        throw UsageError("--out: " + a->out + " is " + option +
                         " this reads; it is never replaced: choose another name");
    }
    if (!a->overwrite && std::filesystem::exists(a->out))
      throw UsageError("--out: " + a->out + " exists; choose another name or pass --overwrite");
    if (a->spacing.size() == 3) {
      for (double s : a->spacing)
        if (!(s > 0.0 && s <= 100.0)) throw UsageError("--spacing: each value must be > 0 and at most 100 mm");
      a->options.spacing = std::array<double, 3>{a->spacing[0], a->spacing[1], a->spacing[2]};
    }
    if (a->size.size() == 3) {
      for (std::size_t n : a->size)
        if (n < 1 || n > 2048) throw UsageError("--size: each value must be 1-2048 voxels");
      a->options.size = std::array<std::size_t, 3>{a->size[0], a->size[1], a->size[2]};
    }
    const Volume segmentation = read_volume(a->segmentation);
    std::optional<Volume> image;
    if (!a->image.empty()) image = read_volume(a->image);
    const PreparedLabel prepared = prepare_label(segmentation, a->segmentation, a->options, image ? &*image : nullptr);
    write_volume(prepared.label, a->out, StoredPixel::label);
    const auto& names = maisi_ct_classes();
    std::cout << a->out << ": " << prepared.label.size[0] << " x " << prepared.label.size[1] << " x "
              << prepared.label.size[2] << " voxels of " << prepared.label.spacing[0] << " x "
              << prepared.label.spacing[1] << " x " << prepared.label.spacing[2] << " mm, " << prepared.classes.size()
              << " MAISI CT classes\n";
    for (const auto& [id, voxels] : prepared.classes)
      std::cout << "  " << id << " " << names.at(id) << ": " << voxels << " voxels\n";
    if (!prepared.envelope.empty())
      std::cout << "body envelope (" << k_maisi_body_label << ") added from " << prepared.envelope << "\n";
    for (const auto& w : prepared.warnings) std::cerr << "prepare-label: warning: " << w << "\n";
    return 0;
  };
}

}  // namespace medsynth::cli
