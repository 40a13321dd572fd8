#include "config/maisi_network_config.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <functional>
#include <map>
#include <set>

#include "config/job_enums.hpp"
#include "core/bounded_json.hpp"
#include "core/error.hpp"

namespace medsynth {

namespace {

using Json = nlohmann::json;

// One `*_def` object: its keys resolved, each consumed at most once, and
// every key left over reported (an option we would silently ignore).
class Section {
 public:
  Section(const Json& root, const std::string& name, const std::string& path)
      : root_(root), name_(name), path_(path), body_(root.at(name)) {}

  bool has(const std::string& key) const { return body_.contains(key); }

  template <class T>
  void read(const std::string& key, T& out) {
    if (!has(key)) return;
    used_.insert(key);
    const Json value = resolve(body_.at(key), key);
    if constexpr (SpelledEnum<T>) {
      const auto parsed = value.is_string() ? parse_enum<T>(value.get<std::string>()) : std::nullopt;
      std::string choices;
      for (const auto& n : enum_names<T>()) choices += (choices.empty() ? "" : ", ") + n;
      if (!parsed) fail(key, "must be one of " + choices + " (got " + value.dump() + ")");
      out = *parsed;
      return;
    }
    if constexpr (std::is_same_v<T, int>) check_int(key, value);
    if constexpr (std::is_same_v<T, std::vector<int>>)
      if (value.is_array())
        for (const auto& item : value) check_int(key, item);
    try {
      out = value.get<T>();
    } catch (const Json::exception& e) {
      fail(key, std::string("has the wrong type (") + e.what() + ")");
    }
  }
  // MONAI lets num_res_blocks / num_head_channels be one number for every level.
  void read_per_level(const std::string& key, std::vector<int>& out, std::size_t levels) {
    if (has(key) && resolve(body_.at(key), key).is_number_integer()) {
      int v = 0;
      read(key, v);
      out.assign(levels, v);
    } else {
      read(key, out);
    }
  }
  void expect_target(const std::string& suffix) {
    std::string target;
    read("_target_", target);
    if (target.size() < suffix.size() || target.compare(target.size() - suffix.size(), suffix.size(), suffix) != 0)
      fail("_target_", "is '" + target + "'; medsynth builds " + suffix + " here");
  }
  // Keys that carry no weight-relevant meaning (printing, memory hints that
  // only CUDA's allocator sees).
  void ignore(std::initializer_list<const char*> keys) {
    for (const char* k : keys) used_.insert(k);
  }
  void finish() const {
    for (const auto& [key, value] : body_.items())
      if (!used_.count(key)) fail(key, "is not an option medsynth knows for this network; refusing to ignore it");
  }
  // nlohmann converts a float or a 64-bit number to int with a plain cast:
  // undefined for 1.8e23, and 4294968296 became 1000 (found by
  // tests/fuzz/config_json_fuzzer). An int option is an integer in int's range.
  void check_int(const std::string& key, const Json& v) const {
    if (!v.is_number()) return;  // the wrong type: get<T> says so
    const bool in_range = v.is_number_unsigned() ? v.get<std::uint64_t>() <= static_cast<std::uint64_t>(std::numeric_limits<int>::max())
                          : v.is_number_integer() ? v.get<std::int64_t>() >= std::numeric_limits<int>::min() &&
                                                        v.get<std::int64_t>() <= std::numeric_limits<int>::max()
                                                  : false;
    if (!in_range) fail(key, "is " + v.dump() + "; expected an integer in " + std::to_string(std::numeric_limits<int>::min()) + ".." +
                                 std::to_string(std::numeric_limits<int>::max()));
  }
  [[noreturn]] void fail(const std::string& key, const std::string& reason) const {
    throw DataError(path_, name_ + "." + key + " " + reason);
  }

 private:
  // "@key" and "$@key" name a top-level value; other "$" expressions are
  // Python. `chain`: the references followed so far, to name a cycle.
  Json resolve(const Json& v, const std::string& key, std::vector<std::string> chain = {}) const {
    if (!v.is_string()) return v;
    std::string s = v.get<std::string>();
    if (s.rfind("$@", 0) == 0) s = s.substr(1);
    if (s.rfind("@", 0) != 0) {
      if (!s.empty() && s[0] == '$') fail(key, "is a Python expression ('" + s + "'); give the value");
      return v;
    }
    const std::string ref = s.substr(1);
    std::string path;
    for (const auto& c : chain) path += "@" + c + " -> ";
    if (std::find(chain.begin(), chain.end(), ref) != chain.end())
      fail(key, "refers to a cycle of references (" + path + "@" + ref + "); give the value");
    if (chain.size() >= k_max_reference_chain)
      fail(key, "follows more than " + std::to_string(k_max_reference_chain) + " references (" + path + "@" + ref + "); give the value");
    if (!root_.contains(ref)) fail(key, "refers to '@" + ref + "', which the file does not define");
    chain.push_back(ref);
    return resolve(root_.at(ref), key, std::move(chain));
  }
  static constexpr std::size_t k_max_reference_chain = 8;

  const Json& root_;
  std::string name_;
  std::string path_;
  const Json& body_;
  std::set<std::string> used_;
};

AutoencoderKLOptions read_autoencoder(Section s) {
  AutoencoderKLOptions a;
  a.maisi = true;
  s.expect_target("AutoencoderKlMaisi");
  s.read("spatial_dims", a.spatial_dims);
  s.read("in_channels", a.in_channels);
  s.read("out_channels", a.out_channels);
  s.read("latent_channels", a.latent_channels);
  s.read("num_channels", a.num_channels);
  s.read_per_level("num_res_blocks", a.num_res_blocks, a.num_channels.size());
  s.read("norm_num_groups", a.norm_num_groups);
  s.read("norm_eps", a.norm_eps);
  s.read("attention_levels", a.attention_levels);
  s.read("with_encoder_nonlocal_attn", a.with_encoder_nonlocal_attn);
  s.read("with_decoder_nonlocal_attn", a.with_decoder_nonlocal_attn);
  s.read("use_checkpointing", a.use_checkpointing);
  s.read("use_convtranspose", a.use_convtranspose);
  s.read("norm_float16", a.norm_float16);
  s.read("num_splits", a.num_splits);
  s.read("dim_split", a.dim_split);
  a.include_fc = false;  // AutoencoderKlMaisi's default
  s.read("include_fc", a.include_fc);
  s.read("use_combined_linear", a.use_combined_linear);
  s.ignore({"use_flash_attention", "print_info", "save_mem"});
  s.finish();
  return a;
}

// The fields DiffusionModelUNetMaisi and ControlNetMaisi share.
template <class Options>
void read_trunk(Section& s, Options& u) {
  s.read("spatial_dims", u.spatial_dims);
  s.read("in_channels", u.in_channels);
  s.read("num_channels", u.channels);
  s.read_per_level("num_res_blocks", u.num_res_blocks, u.channels.size());
  s.read("attention_levels", u.attention_levels);
  s.read_per_level("num_head_channels", u.num_head_channels, u.channels.size());
  s.read("norm_num_groups", u.norm_num_groups);
  s.read("norm_eps", u.norm_eps);
  s.read("resblock_updown", u.resblock_updown);
  s.read("num_class_embeds", u.num_class_embeds);
  s.read("with_conditioning", u.with_conditioning);
  s.read("transformer_num_layers", u.transformer_num_layers);
  s.read("cross_attention_dim", u.cross_attention_dim);
  s.read("upcast_attention", u.upcast_attention);
  s.read("use_combined_linear", u.use_combined_linear);
  s.read("use_flash_attention", u.use_flash_attention);
  u.include_fc = false;  // the MAISI classes' default
  s.read("include_fc", u.include_fc);
  s.ignore({"print_info"});
}

DiffusionUnetOptions read_unet(Section s) {
  DiffusionUnetOptions u;
  s.expect_target("DiffusionModelUNetMaisi");
  read_trunk(s, u);
  s.read("out_channels", u.out_channels);
  s.read("include_top_region_index_input", u.include_top_region_index_input);
  s.read("include_bottom_region_index_input", u.include_bottom_region_index_input);
  s.read("include_spacing_input", u.include_spacing_input);
  s.read("dropout_cattn", u.dropout_cattn);
  s.finish();
  return u;
}

ControlNetMaisiOptions read_controlnet(Section s) {
  ControlNetMaisiOptions c;
  s.expect_target("ControlNetMaisi");
  read_trunk(s, c);
  s.read("use_checkpointing", c.use_checkpointing);
  s.read("conditioning_embedding_in_channels", c.conditioning_embedding_in_channels);
  s.read("conditioning_embedding_num_channels", c.conditioning_embedding_num_channels);
  s.finish();
  return c;
}

SchedulerOptions read_scheduler(Section s, const std::string& path) {
  SchedulerOptions o;
  std::string target;
  s.read("_target_", target);
  s.read("num_train_timesteps", o.noise.num_train_timesteps);
  if (target.find("RFlowScheduler") != std::string::npos) {
    o.kind = SchedulerKind::rflow;
    bool discrete = false;
    s.read("use_discrete_timesteps", discrete);
    if (discrete) s.fail("use_discrete_timesteps", "true is not built (NV-Generate uses false)");
    s.read("use_timestep_transform", o.use_timestep_transform);
    s.read("sample_method", o.sample_method);
    s.read("loc", o.loc);
    s.read("scale", o.scale);
    s.read("transform_scale", o.transform_scale);
    s.read("base_img_size_numel", o.base_img_size_numel);
    o.num_inference_steps = 30;  // NV-Generate's config_infer.json
  } else if (target.find("DDPMScheduler") != std::string::npos) {
    o.kind = SchedulerKind::ddpm;
    s.read("beta_start", o.noise.beta_start);
    s.read("beta_end", o.noise.beta_end);
    s.read("schedule", o.noise.beta_schedule);
    s.read("clip_sample", o.clip_sample);
    s.read("prediction_type", o.prediction_type);
    o.num_inference_steps = o.noise.num_train_timesteps;  // NV-Generate samples ddpm-ct with every step
  } else {
    throw DataError(path, "noise_scheduler._target_ is '" + target + "'; medsynth reads RFlowScheduler or DDPMScheduler");
  }
  s.finish();
  return o;
}

}  // namespace

MaisiNetworkConfig read_maisi_network_config(const std::string& path) {
  const Json root = read_bounded_json_file(
      path, k_document_json_cap, "cannot be opened (NV-Generate's configs/config_network_rflow.json or _ddpm.json)");
  for (const char* key : {"autoencoder_def", "diffusion_unet_def", "noise_scheduler"})
    if (!root.contains(key) || !root[key].is_object()) throw DataError(path, std::string("has no '") + key + "' object");
  MaisiNetworkConfig c;
  c.path = path;
  c.autoencoder = read_autoencoder(Section(root, "autoencoder_def", path));
  c.diffusion_unet = read_unet(Section(root, "diffusion_unet_def", path));
  if (root.contains("controlnet_def")) c.controlnet = read_controlnet(Section(root, "controlnet_def", path));
  c.scheduler = read_scheduler(Section(root, "noise_scheduler", path), path);
  c.include_body_region = c.diffusion_unet.include_top_region_index_input || c.diffusion_unet.include_bottom_region_index_input;
  return c;
}

}  // namespace medsynth
