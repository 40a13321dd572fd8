// Embeddings in NVIDIA NV-Generate-CTMR's layout (issue 34, item 2): the
// encode stage of an imported MAISI run writes <id>_emb.nii.gz ([X, Y, Z, C]
// float32) and <id>_emb.nii.gz.json beside medsynth's own files when
// ldm.embedding_layout is maisi, and a folder holding only such files (as
// NV-Generate's diff_model_create_training_data.py and its tutorial leave
// them, in subfolders that mirror the images') is training input as it is.
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/bounded_json.hpp"
#include "core/error.hpp"
#include "data/ct_phantom.hpp"
#include "diffusion/latent_files.hpp"
#include "diffusion/ldm_task.hpp"
#include "diffusion/maisi_import.hpp"
#include "contract/run_directory.hpp"
#include "state/tensor_file.hpp"
#include "support/child_process.hpp"
#include "support/nv_generate_embedding.hpp"
#include "support/oversized_json.hpp"
#include "support/temp_dir.hpp"
#include "volume/channel_volume_io.hpp"
#include "volume/nifti_header_guard.hpp"
#include "volume/volume_io.hpp"

namespace fs = std::filesystem;

namespace medsynth {
namespace {

using test::write_nv_generate_embedding;

const fs::path k_data = MEDSYNTH_DIFFUSION_TEST_DATA;

std::string import_run(const test::TempDir& dir) {
  MaisiImportOptions o;
  o.folder = (k_data / "maisi_folder").string();
  o.out = (dir / "imported").string();
  import_maisi(o);
  return o.out;
}

// Phantoms of 32 x 16 x 48 voxels: latents [4, 8, 4, 12] in x, y, z, so a
// transposed axis shows in the shape.
std::vector<std::string> train_args(const std::string& run, const test::TempDir& dir, std::vector<std::string> more) {
  std::vector<std::string> args{test::engine_binary(),
                                "train",
                                run,
                                "data.phantom_size=[32,16,48]",
                                "data.patch_size=[16,16,16]",
                                "data.size_multiple=16",
                                "data.num_train=4",
                                "data.num_val=2",
                                "output.log_every_steps=1",
                                "--runs-dir",
                                (dir / "runs").string(),
                                "--quiet"};
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

fs::path only_run_in(const fs::path& runs_dir) {
  std::vector<fs::path> runs;
  for (const auto& e : fs::directory_iterator(runs_dir)) runs.push_back(e.path());
  EXPECT_EQ(runs.size(), 1u);
  return runs.empty() ? fs::path() : runs.front();
}

nlohmann::json read_json(const fs::path& p) {
  std::ifstream in(p);
  return nlohmann::json::parse(in);
}

std::size_t count_metric(const fs::path& events, const std::string& name) {
  std::size_t n = 0;
  std::ifstream in(events);
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    const auto e = nlohmann::json::parse(line);
    n += e.value("type", "") == "metric" && e.value("name", "") == name ? 1 : 0;
  }
  return n;
}

TEST(MaisiEmbeddings, TheEncodeStageAlsoWritesNvGeneratesLayoutEqualToItsLatents) {
  test::TempDir dir("maisi-embeddings-write");
  const std::string imported = import_run(dir);
  const auto r = test::run_process(train_args(imported, dir, {"training.max_steps=2", "ldm.embedding_layout=maisi"}),
                                   dir.path().string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const RunDirectory run{only_run_in(dir / "runs").string()};

  std::size_t checked = 0;
  for (const auto& e : fs::directory_iterator(run.embedding_dir())) {
    const std::string name = e.path().filename().string();
    if (!name.ends_with("_emb.safetensors")) continue;
    const std::string id = name.substr(0, name.size() - std::string("_emb.safetensors").size());
    const at::Tensor ours = read_tensor_file(e.path().string()).tensors.at("latent");
    ASSERT_EQ(ours.sizes().vec(), (std::vector<std::int64_t>{4, 8, 4, 12})) << name;
    const fs::path nifti = fs::path(run.embedding_dir()) / (id + "_emb.nii.gz");
    ASSERT_TRUE(fs::exists(nifti)) << nifti;

    // 4D, channels last, float32: NV-Generate's file.
    const NiftiHeaderInfo header = check_nifti_channel_file(nifti.string());
    EXPECT_EQ(header.ndim, 4) << nifti;
    EXPECT_EQ(header.channels, 4) << nifti;
    EXPECT_EQ(header.size, (std::array<std::int64_t, 3>{8, 4, 12})) << nifti;
    EXPECT_EQ(nifti_datatype_name(header.datatype), "float32") << nifti;
    // Voxel (x, y, z) of channel c is latent[c][x][y][z], exactly.
    const ChannelVolume v = read_channel_volume(nifti.string());
    const auto back =
        at::from_blob(const_cast<float*>(v.voxels.data()), {4, 12, 4, 8}, at::kFloat).permute({0, 3, 2, 1});
    EXPECT_TRUE(at::equal(back, ours)) << nifti << ": max difference " << (back - ours).abs().max().item<double>();

    // The JSON NV-Generate's diff_model_train.py reads beside it; the
    // NIfTI carries the encoded image's spacing, as NV-Generate's does.
    const auto meta = read_json(nifti.string() + ".json");
    const auto own = read_json(fs::path(run.embedding_dir()) / (id + "_emb.json"));
    EXPECT_EQ(meta.at("spacing"), own.at("image_spacing")) << nifti;
    EXPECT_EQ(meta.at("dim"), own.at("image_size")) << nifti;
    EXPECT_EQ(meta.at("modality"), "ct") << nifti;
    EXPECT_EQ(meta.at("split"), own.at("split")) << nifti;
    EXPECT_FALSE(meta.contains("top_region_index")) << "the miniature UNet takes no body region";
    for (int a = 0; a < 3; ++a)
      EXPECT_NEAR(v.spacing[static_cast<std::size_t>(a)], meta.at("spacing")[static_cast<std::size_t>(a)].get<double>(),
                  1e-5);

    // The 3D reader does not take channel 0 of it silently.
    try {
      read_volume(nifti.string());
      ADD_FAILURE() << "read_volume read a 4D file";
    } catch (const DataError& err) {
      EXPECT_NE(std::string(err.what()).find("4D"), std::string::npos) << err.what();
    }
    ++checked;
  }
  EXPECT_EQ(checked, 6u) << "4 training and 2 held-out phantoms";
}

TEST(MaisiEmbeddings, AFolderOfNvGeneratesFilesTrainsAsItIs) {
  test::TempDir dir("maisi-embeddings-read");
  const std::string imported = import_run(dir);
  // As NV-Generate's tutorial writes them: subfolders mirroring the images,
  // JSON with dim, spacing and modality and no split (so: training data);
  // one with medsynth's "split": "val" is held out.
  const fs::path folder = dir / "embeddings";
  const auto gen = at::make_generator<at::CPUGeneratorImpl>(5);
  for (int i = 0; i < 4; ++i) {
    nlohmann::json meta{{"dim", {8, 4, 12}}, {"spacing", {1.5, 1.2, 2.0}}, {"modality", "ct"}};
    if (i == 3) meta["split"] = "val";
    write_nv_generate_embedding(folder / "Task09" / "imagesTr" / ("case_" + std::to_string(i) + "_emb.nii.gz"),
                                at::randn({4, 8, 4, 12}, gen), meta);
  }
  const auto train = read_latents(folder.string(), "train");
  ASSERT_EQ(train.size(), 3u);
  EXPECT_EQ(train.front().id, "Task09/imagesTr/case_0");
  EXPECT_EQ(read_latents(folder.string(), "val").size(), 1u);

  const auto r = test::run_process(
      train_args(imported, dir, {"training.max_steps=3", "ldm.embedding_dir=" + folder.string()}), dir.path().string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const RunDirectory run{only_run_in(dir / "runs").string()};
  EXPECT_EQ(count_metric(run.stage(k_diffusion_stage).events_file(), "train/diffusion_loss"), 3u);
  // Nothing was encoded into NVIDIA's folder, and its latent scale is the run's (issue 50 item 7).
  for (const auto& e : fs::recursive_directory_iterator(folder))
    EXPECT_FALSE(e.path().string().ends_with(".safetensors")) << e.path();
  EXPECT_FALSE(fs::exists(folder / "scale_factor.json"));
  EXPECT_GT(read_scale_factor(run.scale_factor_file()), 0.0);
}

// Issue 50 item 7: training wrote scale_factor.json into NVIDIA's folder (9
// of 17 folders gained one), so a read-only folder could not be trained on.
// The folder is an input: it trains read-only and is left as it was.
TEST(MaisiEmbeddings, AReadOnlyFolderOfNvGeneratesFilesTrainsAndIsLeftAsItWas) {
  test::TempDir dir("maisi-embeddings-ro");
  const std::string imported = import_run(dir);
  const fs::path folder = dir / "embeddings";
  const auto gen = at::make_generator<at::CPUGeneratorImpl>(6);
  for (int i = 0; i < 3; ++i)
    write_nv_generate_embedding(folder / ("case_" + std::to_string(i) + "_emb.nii.gz"), at::randn({4, 8, 4, 12}, gen),
                                {{"dim", {8, 4, 12}}, {"spacing", {1.5, 1.2, 2.0}}, {"modality", "ct"}});
  std::vector<std::string> before;
  for (const auto& e : fs::recursive_directory_iterator(folder)) before.push_back(e.path().string());
  // Root ignores permission bits (CI runs as root): a read-only bind mount then.
  fs::path input = folder;
  struct Unmount {
    fs::path at;
    ~Unmount() {
      if (!at.empty()) test::run_process({"/bin/umount", at.string()}, "/");
    }
  } unmount;
  if (::geteuid() == 0) {
    input = dir / "read-only";
    fs::create_directories(input);
    const auto mounted =
        test::run_process({"/bin/sh", "-c", "mount --bind \"$0\" \"$1\" && mount -o remount,bind,ro \"$1\" 2>&1",
                           folder.string(), input.string()},
                          "/");
    if (mounted.exit_code != 0) GTEST_SKIP() << "cannot bind-mount read-only here: " << mounted.out << mounted.err;
    unmount.at = input;
  } else {
    for (const auto& e : fs::recursive_directory_iterator(folder))
      fs::permissions(e.path(), fs::perms::owner_write | fs::perms::group_write | fs::perms::others_write,
                      fs::perm_options::remove);
    fs::permissions(folder, fs::perms::owner_write | fs::perms::group_write | fs::perms::others_write,
                    fs::perm_options::remove);
  }
  const auto r = test::run_process(
      train_args(imported, dir, {"training.max_steps=2", "ldm.embedding_dir=" + input.string()}), dir.path().string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> after;
  for (const auto& e : fs::recursive_directory_iterator(folder)) after.push_back(e.path().string());
  EXPECT_EQ(after, before) << "the input folder was written to";
  const RunDirectory run{only_run_in(dir / "runs").string()};
  EXPECT_GT(read_scale_factor(run.scale_factor_file()), 0.0);
}

// Issue 50 item 7: a scale_factor.json saying 1e300 ended in "training
// diverged" naming no file; 0 and -1 were refused without the value. Now each
// is refused naming the file and the value, as export-maisi reads it.
TEST(MaisiEmbeddings, AnOutOfRangeScaleFactorIsRefusedNamingTheFileAndTheValue) {
  test::TempDir dir("maisi-embeddings-scale");
  const RunDirectory run{import_run(dir)};
  for (const std::string value : {"1e300", "0", "-1", "1e-300"}) {
    test::write_bytes(run.scale_factor_file(), R"({"scale_factor": )" + value + R"(, "latent_std": 1.0})");
    const auto r = test::run_process(
        {test::engine_binary(), "export-maisi", run.root, (dir / ("out" + value)).string()}, dir.path().string());
    EXPECT_EQ(r.exit_code, 3) << value << ": " << r.err;
    EXPECT_NE(
        r.err.find(run.scale_factor_file() + ": scale_factor " + nlohmann::json::parse(value).dump() + " is outside"),
        std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(dir / ("out" + value) / "models" / "diff_unet_3d_rflow-ct.pt")) << value;
  }
  // JSON has no NaN: the text "NaN" is not JSON, refused naming the file.
  test::write_bytes(run.scale_factor_file(), R"({"scale_factor": NaN})");
  const auto nan = test::run_process({test::engine_binary(), "export-maisi", run.root, (dir / "outnan").string()},
                                     dir.path().string());
  EXPECT_EQ(nan.exit_code, 3) << nan.err;
  EXPECT_NE(nan.err.find(run.scale_factor_file()), std::string::npos) << nan.err;
}

TEST(MaisiEmbeddings, AnUnusableFolderIsRefusedNamingTheFile) {
  test::TempDir dir("maisi-embeddings-bad");
  // A 3D NIfTI where a 4D one belongs.
  const fs::path flat = dir / "flat";
  fs::create_directories(flat);
  write_volume(make_volume({8, 4, 12}), (flat / "a_emb.nii.gz").string());
  std::ofstream((flat / "a_emb.nii.gz.json").string()) << R"({"spacing": [1, 1, 1]})";
  try {
    read_latents(flat.string(), "train");
    ADD_FAILURE() << "a 3D file was read as a latent";
  } catch (const DataError& e) {
    EXPECT_EQ(e.path(), (flat / "a_emb.nii.gz").string());
    EXPECT_NE(e.reason().find("3D"), std::string::npos) << e.what();
  }
  // A latent without its JSON.
  const fs::path bare = dir / "bare";
  write_nv_generate_embedding(bare / "a_emb.nii.gz", at::zeros({4, 8, 4, 12}), nullptr);
  try {
    read_latents(bare.string(), "");
    ADD_FAILURE() << "a latent without its JSON was read";
  } catch (const DataError& e) {
    EXPECT_EQ(e.path(), (bare / "a_emb.nii.gz.json").string()) << e.what();
  }

  // Three channels for a four-channel autoencoder; and the maisi layout for
  // zyx networks.
  const std::string imported = import_run(dir);
  const fs::path three = dir / "three";
  write_nv_generate_embedding(three / "a_emb.nii.gz", at::ones({3, 8, 4, 12}), {{"spacing", {1, 1, 1}}});
  // A broken file after it: the first wrong latent must stop the reading
  // before it (issue 50 item 8; every file was read before any was checked).
  std::ofstream((three / "b_emb.nii.gz").string()) << "not a NIfTI";
  std::ofstream((three / "b_emb.nii.gz.json").string()) << R"({"spacing": [1, 1, 1]})";
  const auto r = test::run_process(
      train_args(imported, dir, {"training.max_steps=1", "ldm.embedding_dir=" + three.string()}), dir.path().string());
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find((three / "a_emb.nii.gz").string()), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("latent_channels"), std::string::npos) << r.err;
  const auto zyx = test::run_process(
      train_args(imported, dir, {"training.max_steps=1", "ldm.embedding_layout=maisi", "model.tensor_axes=zyx"}),
      dir.path().string());
  EXPECT_EQ(zyx.exit_code, 2) << zyx.err;
  EXPECT_NE(zyx.err.find("ldm.embedding_layout"), std::string::npos) << zyx.err;
}

// Issue 50 item 8: every latent of a folder was read before any was
// checked (seven 1.1 MB files: 14 s and 2 GB before the channel error). Each
// is checked as it is read: the first wrong file stops the reading, so the
// broken files after it (which would fail to read) are never opened.
TEST(MaisiEmbeddings, AWrongLatentStopsTheReadingAtItsOwnFile) {
  test::TempDir dir("maisi-embeddings-fail-fast");
  const fs::path folder = dir / "three";
  const nlohmann::json meta{{"spacing", {1, 1, 1}}};
  write_nv_generate_embedding(folder / "a_emb.nii.gz", at::ones({3, 8, 4, 12}), meta);
  for (const char* later : {"b_emb.nii.gz", "c_emb.nii.gz"}) {
    std::ofstream((folder / later).string()) << "not a NIfTI";
    std::ofstream((folder / later).string() + ".json") << meta.dump();
  }
  LatentRequirements four;
  four.channels = 4;
  four.channels_field = "model.autoencoder.latent_channels";
  try {
    read_latents(folder.string(), "train", four);
    ADD_FAILURE() << "three-channel latents were read for a four-channel autoencoder";
  } catch (const DataError& e) {
    EXPECT_EQ(e.path(), (folder / "a_emb.nii.gz").string()) << e.what();
    EXPECT_NE(e.reason().find("has 3 channels; model.autoencoder.latent_channels is 4"), std::string::npos) << e.what();
  }
  // medsynth's own layout, the same.
  const fs::path own = dir / "own";
  for (const char* id : {"a", "b"}) {
    LatentRecord r;
    r.id = id;
    r.split = "train";
    r.latent = at::ones({3, 4, 4, 4});
    write_latent(own.string(), r);
  }
  std::ofstream((own / "b_emb.safetensors").string()) << "not a tensor file";
  try {
    read_latents(own.string(), "train", four);
    ADD_FAILURE() << "three-channel latents were read for a four-channel autoencoder";
  } catch (const DataError& e) {
    EXPECT_EQ(e.path(), latent_path(own.string(), "a")) << e.what();
  }
}

// Issue 50 item 8: an embedding's JSON over the cap of one document (4 MiB;
// NV-Generate's hold a spacing and a modality) is refused before parsing.
TEST(MaisiEmbeddings, AnEmbeddingsJsonOverTheByteCapIsRefusedBeforeParsing) {
  test::TempDir dir("maisi-embeddings-json-cap");
  const fs::path nifti = dir / "e" / "a_emb.nii.gz";
  write_nv_generate_embedding(nifti, at::zeros({4, 8, 4, 12}), nullptr);
  test::expect_refused_one_byte_over_the_cap(nifti.string() + ".json", R"({"spacing": [1, 1, 1]})",
                                             k_document_json_cap.bytes,
                                             [&] { read_latents((dir / "e").string(), ""); });
}

// Issue 34, item 5: ddpm-ct's body regions are trained from each embedding's
// own top/bottom_region_index (NV-Generate's JSON), not only the job's; a
// latent without them takes generate.*_region_index. Fed x 100, as NV-Generate.
TEST(MaisiEmbeddings, EachEmbeddingsBodyRegionsConditionTheUnet) {
  test::TempDir dir("maisi-embeddings-regions");
  const fs::path folder = dir / "embeddings";
  const auto gen = at::make_generator<at::CPUGeneratorImpl>(6);
  write_nv_generate_embedding(
      folder / "head_emb.nii.gz", at::randn({4, 8, 4, 12}, gen),
      {{"spacing", {1.5, 1.5, 2.0}}, {"top_region_index", {1, 0, 0, 0}}, {"bottom_region_index", {0, 1, 0, 0}}});
  write_nv_generate_embedding(folder / "plain_emb.nii.gz", at::randn({4, 8, 4, 12}, gen),
                              {{"spacing", {1.5, 1.5, 2.0}}});
  const auto latents = read_latents(folder.string(), "train");
  ASSERT_EQ(latents.size(), 2u);
  EXPECT_EQ(latents[0].top_region_index, (std::vector<double>{1, 0, 0, 0}));
  EXPECT_TRUE(latents[1].top_region_index.empty());

  JobSpec job;
  job.model.diffusion_unet.include_top_region_index_input = true;
  job.model.diffusion_unet.include_bottom_region_index_input = true;
  job.generate.top_region_index = {0, 0, 1, 0};
  job.generate.bottom_region_index = {0, 0, 0, 1};
  const auto inputs = unet_embedding_inputs(job, {&latents[0], &latents[1]}, {}, c10::Device(c10::kCPU));
  EXPECT_TRUE(
      at::equal(inputs.top_region_index, at::tensor({100.f, 0.f, 0.f, 0.f, 0.f, 0.f, 100.f, 0.f}).view({2, 4})));
  EXPECT_TRUE(
      at::equal(inputs.bottom_region_index, at::tensor({0.f, 100.f, 0.f, 0.f, 0.f, 0.f, 0.f, 100.f}).view({2, 4})));

  // Three values are no body region: the file is named.
  write_nv_generate_embedding(folder / "bad_emb.nii.gz", at::randn({4, 8, 4, 12}, gen),
                              {{"spacing", {1.5, 1.5, 2.0}}, {"top_region_index", {1, 0, 0}}});
  try {
    read_latents(folder.string(), "train");
    ADD_FAILURE() << "a 3-value region was read";
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find("bad_emb.nii.gz.json"), std::string::npos) << e.what();
  }
}

// Issue 54 item 6: a mixed set trains as NV-Generate trains it, each image
// with the class and body regions its datalist entry names: the encode stage
// writes them into both latent JSONs, the LDM task reads them back per
// latent, and a class the UNet does not have is refused before any image is
// encoded, naming the image.
TEST(MaisiEmbeddings, EachDatalistEntrysModalityAndRegionsReachItsLatent) {
  test::TempDir dir("maisi-embeddings-datalist");
  const std::string imported = import_run(dir);
  PhantomOptions phantom;
  phantom.size = {32, 16, 48};
  phantom.spacing = {1.5, 1.5, 2.0};
  for (int i = 0; i < 3; ++i)
    write_volume(make_ct_phantom(40 + static_cast<std::uint64_t>(i), phantom),
                 (dir / ("ct_" + std::to_string(i) + ".nii.gz")).string());
  const auto write_list = [&](const std::string& third_modality) {
    std::ofstream(dir / "list.json") << R"({"training": [
      {"image": "ct_0.nii.gz", "modality": "ct_contrast", "top_region_index": [0, 0, 1, 0]},
      {"image": "ct_1.nii.gz", "modality": "ct_wo_contrast", "bottom_region_index": [0, 0, 0, 1]},
      {"image": "ct_2.nii.gz", "modality": ")" +
                                            third_modality + R"("}]})";
  };
  const std::vector<std::string> data{"data.source=datalist", "data.path=" + (dir / "list.json").string(),
                                      "data.val_fraction=0.34", "training.max_steps=1", "ldm.embedding_layout=maisi"};

  write_list("ct");
  const auto r = test::run_process(train_args(imported, dir, data), dir.path().string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const RunDirectory run{only_run_in(dir / "runs").string()};
  const auto own = [&](const std::string& id) { return read_json(fs::path(run.embedding_dir()) / (id + "_emb.json")); };
  const auto theirs = [&](const std::string& id) {
    return read_json(fs::path(run.embedding_dir()) / (id + "_emb.nii.gz.json"));
  };
  EXPECT_EQ(own("train-ct_0").at("modality"), "ct_contrast");
  EXPECT_EQ(own("train-ct_0").at("top_region_index").dump(), "[0,0,1,0]");
  EXPECT_FALSE(own("train-ct_0").contains("bottom_region_index"));
  EXPECT_EQ(own("train-ct_1").at("modality"), "ct_wo_contrast");
  EXPECT_EQ(theirs("train-ct_0").at("modality"), "ct_contrast") << "the entry's class over the job's (ct)";
  EXPECT_EQ(theirs("train-ct_1").at("bottom_region_index").dump(), "[0,0,0,1]");
  EXPECT_EQ(theirs("val-ct_2").at("modality"), "ct");

  JobSpec job;
  job.model.diffusion_unet.num_class_embeds = 8;
  job.generate.modality = 1;
  const auto latents = read_latents(run.embedding_dir(), "train");
  ASSERT_EQ(latents.size(), 2u);
  const auto labels = unet_embedding_inputs(job, {&latents[0], &latents[1]}, {}, c10::Device(c10::kCPU)).class_labels;
  EXPECT_TRUE(at::equal(labels, at::tensor({3, 2}, at::kLong))) << labels;

  // mri_t2 (10) is beyond the miniature UNet's 8 classes: refused before
  // anything is encoded, naming the image and the field.
  write_list("mri_t2");
  fs::remove_all(dir / "runs");
  const auto refused = test::run_process(train_args(imported, dir, data), dir.path().string());
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.err.find("ct_2.nii.gz"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("num_class_embeds"), std::string::npos) << refused.err;
  if (fs::exists(dir / "runs"))
    for (const auto& e : fs::recursive_directory_iterator(dir / "runs"))
      EXPECT_FALSE(e.path().filename().string().ends_with("_emb.safetensors")) << e.path() << " was encoded";
}

// Issue 50 item 10: spacing 1e300 failed at the UNet's float conversion
// naming no file; a symbolic link loop under an embedding's name gave a raw
// filesystem error. Both are refused naming the file.
TEST(MaisiEmbeddings, AHugeSpacingOrALinkLoopIsRefusedNamingTheFile) {
  test::TempDir dir("maisi-embeddings-hostile");
  const fs::path huge = dir / "huge";
  write_nv_generate_embedding(huge / "a_emb.nii.gz", at::zeros({4, 8, 4, 12}), {{"spacing", {1.0, 1e300, 1.0}}});
  try {
    read_latents(huge.string(), "");
    ADD_FAILURE() << "spacing 1e300 was accepted";
  } catch (const DataError& e) {
    EXPECT_EQ(e.path(), (huge / "a_emb.nii.gz.json").string()) << e.what();
    EXPECT_NE(e.reason().find("spacing"), std::string::npos) << e.what();
    EXPECT_NE(e.reason().find("1e+300"), std::string::npos) << e.what();
  }
  const fs::path loop = dir / "loop";
  write_nv_generate_embedding(loop / "a_emb.nii.gz", at::zeros({4, 8, 4, 12}), {{"spacing", {1, 1, 1}}});
  fs::create_symlink("b_emb.nii.gz", loop / "b_emb.nii.gz");  // points at itself
  try {
    read_latents(loop.string(), "");
    ADD_FAILURE() << "a link loop was read";
  } catch (const DataError& e) {
    EXPECT_EQ(e.path(), (loop / "b_emb.nii.gz").string()) << e.what();
    EXPECT_NE(e.reason().find("cannot follow it"), std::string::npos) << e.what();
  }
}

// The metadata is read field by field before the latent beside it is opened
// (diffusion/maisi_embedding_metadata.hpp). A negative dim, one past 2^31
// (2^64 - 1 read through get<int64_t> was -1) and a "stored" other than
// sample/mean were accepted before, each refused now naming the file.
TEST(MaisiEmbeddings, AWrongDimOrStoredIsRefusedNamingTheMetadataFile) {
  test::TempDir dir("maisi-embeddings-dim");
  const std::vector<std::pair<std::string, nlohmann::json>> bad{
      {"dim", nlohmann::json{{"spacing", {1, 1, 1}}, {"dim", {-1, 8, 8}}}},
      {"dim", nlohmann::json{{"spacing", {1, 1, 1}}, {"dim", {18446744073709551615ull, 8, 8}}}},
      {"dim", nlohmann::json{{"spacing", {1, 1, 1}}, {"dim", {8, 8}}}},
      {"stored", nlohmann::json{{"spacing", {1, 1, 1}}, {"stored", "median"}}}};
  int k = 0;
  for (const auto& [field, meta] : bad) {
    const fs::path folder = dir / ("case" + std::to_string(k++));
    write_nv_generate_embedding(folder / "a_emb.nii.gz", at::zeros({4, 8, 4, 12}), meta);
    try {
      read_latents(folder.string(), "");
      ADD_FAILURE() << meta.dump() << " was accepted";
    } catch (const DataError& e) {
      EXPECT_EQ(e.path(), (folder / "a_emb.nii.gz.json").string()) << e.what();
      EXPECT_NE(e.reason().find(field), std::string::npos) << e.what();
    }
  }
  const fs::path good = dir / "good";
  write_nv_generate_embedding(good / "a_emb.nii.gz", at::zeros({4, 8, 4, 12}),
                              {{"spacing", {1.5, 1.5, 2}}, {"dim", {256, 256, 128}}, {"stored", "mean"}});
  const auto latents = read_latents(good.string(), "");
  ASSERT_EQ(latents.size(), 1u);
  EXPECT_EQ(latents[0].image_size, (std::array<std::int64_t, 3>{256, 256, 128}));
  EXPECT_EQ(latents[0].stored, "mean");
}

}  // namespace
}  // namespace medsynth
