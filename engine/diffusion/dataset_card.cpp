#include "diffusion/dataset_card.hpp"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string_view>

#include "core/bounded_json.hpp"
#include "core/error.hpp"
#include "core/file_digest.hpp"
#include "core/volume_file_names.hpp"
#include "contract/volume_provenance.hpp"
#include "volume/atomic_file.hpp"

namespace medsynth {

namespace fs = std::filesystem;

namespace {

using Json = nlohmann::json;

Json read_json_file(const fs::path& path, const JsonByteCap& cap) {
  return read_bounded_json_file(path.string(), cap, "cannot open it");
}

// ..._image.nii.gz -> ..._quality.json (generate --quality-check's report).
fs::path quality_report_of(const fs::path& image) {
  std::string name = image.filename().string();
  const auto at = name.rfind("_image.");
  return image.parent_path() / (name.substr(0, at) + "_quality.json");
}

void read_quality(const fs::path& report, DatasetCardPair& pair) {
  if (!fs::exists(report)) return;
  const Json q = read_json_file(report, k_document_json_cap);
  if (!q.contains("passed") || !q["passed"].is_boolean() || !q.contains("tries") || !q["tries"].is_array())
    throw DataError(report.string(), "not a quality report of generate --quality-check (passed, tries)");
  pair.quality_passed = q["passed"].get<bool>();
  pair.quality_tries = static_cast<int>(q["tries"].size());
  if (q["tries"].empty() || !q["tries"].back().contains("organs")) return;
  // Each organ is an object of strings and booleans: anything else threw
  // nlohmann's type_error.306, naming no file (issue 50 item 10).
  const Json& organs = q["tries"].back()["organs"];
  const auto is_organ = [](const Json& o) {
    return o.is_object() && (!o.contains("outlier") || o["outlier"].is_boolean()) &&
           (!o.contains("organ") || o["organ"].is_string());
  };
  if (!organs.is_array() || !std::all_of(organs.begin(), organs.end(), is_organ))
    throw DataError(report.string(),
                    "its last try's organs are not a list of {\"organ\": name, \"outlier\": true|false}");
  for (const auto& organ : organs)
    if (organ.value("outlier", false))
      pair.quality_failures += (pair.quality_failures.empty() ? "" : "; ") + organ.value("organ", std::string("?"));
}

// A ratio of the audit; null (evaluate without a run has no latent ratio)
// or absent reads as "not close to anything".
double audit_ratio(const Json& c, const char* key) {
  const auto it = c.find(key);
  return it != c.end() && it->is_number() ? it->get<double>() : 1e9;
}

// The memorization cases of an evaluation.json by generated file name.
void read_memorization(const fs::path& evaluation, std::vector<DatasetCardPair>& pairs) {
  const Json e = read_json_file(evaluation, k_case_list_json_cap);  // one memorization case per generated volume
  if (!e.contains("memorization") || !e["memorization"].is_object()) return;  // evaluated without --train
  const Json cases = e["memorization"].value("cases", Json::array());
  const auto is_case = [](const Json& c) {
    return c.is_object() && (!c.contains("generated") || c["generated"].is_string()) &&
           (!c.contains("flagged") || c["flagged"].is_boolean());
  };
  if (!cases.is_array() || !std::all_of(cases.begin(), cases.end(), is_case))
    throw DataError(evaluation.string(),
                    "memorization.cases is not a list of {\"generated\": file, \"flagged\": true|false, ...}");
  for (const auto& c : cases) {
    const std::string generated = fs::path(c.value("generated", std::string())).filename().string();
    for (auto& pair : pairs)
      if (pair.image == generated) {
        pair.memorized = c.value("flagged", false);
        pair.memorization_ratio = std::min(audit_ratio(c, "ms_ssim_ratio"), audit_ratio(c, "latent_ratio"));
      }
  }
}

std::string short_hash(const std::string& h) { return h.size() > 12 ? h.substr(0, 12) : h; }

// Text from a stranger's files (organ names of a quality report, file names)
// as one Markdown table cell: a forged organ name added a heading and an
// <img> to the card (issue 50 item 10). Line breaks become spaces, HTML
// its entities, and the punctuation of Markdown's emphasis, links, images
// and cells is escaped.
std::string markdown_cell(const std::string& text) {
  std::string out;
  for (const char ch : text) {
    if (ch == '<')
      out += "&lt;";
    else if (ch == '>')
      out += "&gt;";
    else if (ch == '&')
      out += "&amp;";
    else if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f)
      out += ' ';
    else if (std::string_view("\\`*_[]!|~").find(ch) != std::string_view::npos)
      out += std::string("\\") + ch;
    else
      out += ch;
  }
  return out;
}

}  // namespace

DatasetCard read_dataset_card(const std::string& folder, const std::string& evaluation_json) {
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) throw UsageError(folder + ": not a folder of generated image/label pairs");
  DatasetCard card;
  card.folder = folder;
  std::vector<fs::path> images;
  for (const auto& entry : fs::directory_iterator(folder, ec))
    if (entry.is_regular_file() && entry.path().filename().string().find("_image.") != std::string::npos)
      images.push_back(entry.path());
  std::sort(images.begin(), images.end());
  for (const auto& image : images) {
    const auto label = paired_label_name(image.string());
    if (!label || !fs::exists(*label)) continue;  // an image without its label is no pair
    DatasetCardPair pair;
    pair.image = image.filename().string();
    pair.label = fs::path(*label).filename().string();
    if (const auto p = read_volume_provenance(image.string())) {
      pair.has_provenance = true;
      pair.seed = p->seed;
      pair.scheduler = p->scheduler;
      pair.steps = p->num_inference_steps;
      pair.engine_version = p->engine_version;
      pair.modality = p->modality;
      pair.unet_hash = p->unet_checkpoint_hash;
      pair.autoencoder_hash = p->autoencoder_checkpoint_hash;
      pair.controlnet_hash = p->controlnet_checkpoint_hash;
      pair.label_hash = p->label_hash;
    }
    pair.label_file_hash = file_sha256(*label);  // the file's own, not what a provenance claims
    read_quality(quality_report_of(image), pair);
    card.pairs.push_back(std::move(pair));
  }
  if (card.pairs.empty())
    throw UsageError(folder +
                     ": no image/label pairs (X_image.nii.gz beside X_label.nii.gz, as generate --label writes them)");
  fs::path evaluation = evaluation_json;
  if (evaluation.empty() && fs::exists(fs::path(folder) / "evaluation" / "evaluation.json"))
    evaluation = fs::path(folder) / "evaluation" / "evaluation.json";
  if (!evaluation.empty()) {
    read_memorization(evaluation, card.pairs);
    card.evaluation = evaluation.string();
  }
  return card;
}

std::string write_dataset_card(const DatasetCard& card) {
  Json pairs = Json::array();
  std::size_t passed = 0, checked = 0, flagged = 0, audited = 0, without_provenance = 0;
  for (const auto& p : card.pairs) {
    Json j = {{"image", p.image}, {"label", p.label}, {"provenance", p.has_provenance}};
    without_provenance += p.has_provenance ? 0 : 1;
    if (p.has_provenance) {
      j["seed"] = p.seed;
      j["scheduler"] = p.scheduler;
      j["num_inference_steps"] = p.steps;
      j["engine_version"] = p.engine_version;
      j["modality"] = p.modality;
      j["sha256"] = {{"unet", p.unet_hash},
                     {"autoencoder", p.autoencoder_hash},
                     {"controlnet", p.controlnet_hash},
                     {"label", p.label_hash}};
    }
    j["label_sha256"] = p.label_file_hash;
    if (p.quality_passed) {
      ++checked;
      passed += *p.quality_passed ? 1 : 0;
      j["quality"] = {{"passed", *p.quality_passed}, {"tries", p.quality_tries}, {"failed_organs", p.quality_failures}};
    }
    if (p.memorized) {
      ++audited;
      flagged += *p.memorized ? 1 : 0;
      j["memorization"] = {{"flagged", *p.memorized}, {"ratio", p.memorization_ratio}};
    }
    pairs.push_back(j);
  }
  const Json json = {{"folder", fs::absolute(card.folder).string()},
                     {"pairs", pairs},
                     {"evaluation", card.evaluation},
                     {"summary",
                      {{"pairs", card.pairs.size()},
                       {"quality_checked", checked},
                       {"quality_passed", passed},
                       {"memorization_audited", audited},
                       {"memorization_flagged", flagged},
                       {"without_provenance", without_provenance}}}};
  std::ostringstream md;
  md << "# Dataset card: " << fs::path(card.folder).filename().string() << "\n\n"
     << "Synthetic CT image/label pairs generated by medsynth (a generative model), not acquired from patients.\n\n"
     << "- Pairs: " << card.pairs.size() << "\n"
     << "- Organ quality check: "
     << (checked ? std::to_string(passed) + " of " + std::to_string(checked) + " passed"
                 : "not run (generate --quality-check)")
     << "\n"
     << "- Memorization audit: "
     << (audited ? std::to_string(flagged) + " of " + std::to_string(audited) +
                       " flagged as copies of a training case (" + card.evaluation + ")"
                 : "not run (medsynth-engine evaluate FOLDER --reference REF --train TRAIN --out FOLDER/evaluation)")
     << "\n"
     << "- Pairs whose image records its provenance: " << card.pairs.size() - without_provenance << " of "
     << card.pairs.size() << "\n\n"
     << "Hashes are SHA-256 (first 12 hex digits): of each label file as it is in this folder, and, as each image's "
        "provenance records them, of the checkpoints and of the label map it was generated from.\n\n"
        "| image | label | label file | seed | UNet | autoencoder | ControlNet | input label | QA | memorized |\n"
     << "|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& p : card.pairs) {
    md << "| " << markdown_cell(p.image) << " | " << markdown_cell(p.label) << " | " << short_hash(p.label_file_hash)
       << " | " << (p.has_provenance ? std::to_string(p.seed) : "-") << " | " << short_hash(p.unet_hash) << " | "
       << short_hash(p.autoencoder_hash) << " | " << short_hash(p.controlnet_hash) << " | " << short_hash(p.label_hash)
       << " | "
       << (!p.quality_passed   ? "-"
           : *p.quality_passed ? "passed"
                               : "failed: " + markdown_cell(p.quality_failures))
       << " | "
       << (!p.memorized   ? "-"
           : *p.memorized ? "FLAGGED"
                          : "no")
       << " |\n";
  }
  const std::string markdown = md.str();
  const fs::path folder = card.folder;
  write_string_atomically((folder / "dataset-card.json").string(), json.dump(2) + "\n");
  write_string_atomically((folder / "dataset-card.md").string(), markdown);
  return markdown;
}

}  // namespace medsynth
