// torch.save files read without Python: the fixtures of
// data/make_torch_save_fixtures.py (zip and legacy formats, MAISI-style dicts,
// dtypes, shared storages, hostile and damaged files), plus hand-made pickles
// that push the restricted machine against its limits.
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <caffe2/serialize/inline_container.h>

#include <filesystem>
#include <string>

#include "core/error.hpp"
#include "support/temp_dir.hpp"
#include "weights/torch_archive.hpp"
#include "weights/torch_file_writer.hpp"

namespace fs = std::filesystem;
using namespace medsynth;

namespace {

const fs::path k_data = MEDSYNTH_TORCH_SAVE_TEST_DATA;

std::string fixture(const std::string& name) { return (k_data / name).string(); }

// What the generator wrote for tensor `index` of a state dict.
at::Tensor arange_like(at::IntArrayRef shape, int index, at::ScalarType dtype = at::kFloat) {
  const int64_t numel = c10::multiply_integers(shape);
  return ((at::arange(numel, at::kDouble) + 100 * index) * 0.25).reshape(shape).to(dtype);
}

// The weights of the generator's Sequential(Conv3d(1, 2, 3), GroupNorm(1, 2)).
void expect_tiny_model(const std::map<std::string, at::Tensor>& sd) {
  const std::vector<std::pair<std::string, std::vector<int64_t>>> expected = {
      {"0.weight", {2, 1, 3, 3, 3}}, {"0.bias", {2}}, {"1.weight", {2}}, {"1.bias", {2}}};
  ASSERT_EQ(sd.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const auto& [name, shape] = expected[i];
    ASSERT_TRUE(sd.count(name)) << name;
    const at::Tensor& t = sd.at(name);
    EXPECT_EQ(t.sizes().vec(), shape) << name;
    EXPECT_EQ(t.scalar_type(), at::kFloat) << name;
    EXPECT_TRUE(at::equal(t, arange_like(shape, static_cast<int>(i)))) << name;
  }
}

// A zip archive as torch.save lays it out, holding only a hand-made data.pkl.
std::string zip_with_pickle(const test::TempDir& dir, const std::string& pickle) {
  const std::string path = (dir / "crafted.pt").string();
  caffe2::serialize::PyTorchStreamWriter writer(path);
  writer.writeRecord("data.pkl", pickle.data(), pickle.size());
  writer.writeEndOfFile();
  return path;
}

// The reason read_torch_file gives for a file, or "" when it loads.
std::string refusal(const std::string& path) {
  try {
    read_torch_file(path);
  } catch (const DataError& e) {
    EXPECT_EQ(e.path(), path);
    return e.reason();
  }
  return "";
}

std::string refusal_of_pickle(const std::string& pickle) {
  test::TempDir dir("torch_archive");
  return refusal(zip_with_pickle(dir, pickle));
}

// A string literal with its embedded zero bytes.
template <std::size_t N>
std::string raw(const char (&s)[N]) {
  return std::string(s, N - 1);
}

const std::string k_proto2 = raw("\x80\x02");

}  // namespace

TEST(TorchArchive, PlainStateDictKeepsNamesShapesDtypesAndValues) {
  const std::string path = fixture("plain_state_dict.pt");
  expect_tiny_model(state_dict_of(read_torch_file(path), path));
}

TEST(TorchArchive, NvGenerateCheckpointGivesUnetWeightsAndScaleFactor) {
  const std::string path = fixture("nv_generate.pt");
  const PickleValue root = read_torch_file(path);
  expect_tiny_model(state_dict_of(root, path));
  const auto extras = scalar_extras_of(root);
  ASSERT_TRUE(extras.count("scale_factor"));
  EXPECT_NEAR(extras.at("scale_factor"), 0.9, 1e-6);
  EXPECT_EQ(extras.at("epoch"), 3.0);
  EXPECT_EQ(extras.at("num_train_timesteps"), 1000.0);
  EXPECT_EQ(extras.at("loss"), 0.125);
  EXPECT_EQ(extras.count("unet_state_dict"), 0u);
  const auto* betas = root.find("betas")->get_if<PickleValue::Tuple>();
  ASSERT_NE(betas, nullptr);
  ASSERT_EQ(betas->items.size(), 2u);
  EXPECT_EQ(*betas->items[1].get_if<double>(), 0.999);
}

TEST(TorchArchive, HalfBFloat16AndIntegerTensorsKeepTheirDtypes) {
  const std::string path = fixture("dtypes.pt");
  const auto sd = state_dict_of(read_torch_file(path), path);
  ASSERT_EQ(sd.size(), 7u);
  EXPECT_TRUE(at::equal(sd.at("half"), (at::arange(6, at::kHalf).reshape({2, 3}) * 0.5)));
  EXPECT_EQ(sd.at("half").scalar_type(), at::kHalf);
  EXPECT_TRUE(at::equal(sd.at("bf16"), at::arange(5, at::kBFloat16) - 2));
  EXPECT_EQ(sd.at("bf16").scalar_type(), at::kBFloat16);
  EXPECT_TRUE(at::equal(sd.at("long"), at::arange(4, at::kLong) - 2));
  EXPECT_TRUE(at::equal(sd.at("int"), at::arange(3, at::kInt) * 7));
  EXPECT_TRUE(at::equal(sd.at("byte"), at::arange(4, at::kByte) + 250));
  EXPECT_TRUE(at::equal(sd.at("bool"), at::tensor({1, 0, 1}, at::kByte).to(at::kBool)));
  EXPECT_TRUE(at::equal(sd.at("double"), at::arange(3, at::kDouble) / 3));
}

TEST(TorchArchive, ViewsShareOneStorageWithTheirOffsetsAndStrides) {
  const std::string path = fixture("views.pt");
  const auto sd = state_dict_of(read_torch_file(path), path);
  const at::Tensor base = at::arange(12, at::kFloat).reshape({3, 4});
  EXPECT_TRUE(at::equal(sd.at("base"), base));
  EXPECT_TRUE(at::equal(sd.at("tail"), base.slice(0, 1)));
  EXPECT_EQ(sd.at("tail").storage_offset(), 4);
  EXPECT_TRUE(at::equal(sd.at("transposed"), base.t()));
  EXPECT_EQ(sd.at("transposed").strides().vec(), (std::vector<int64_t>{1, 4}));
  EXPECT_TRUE(at::equal(sd.at("column"), base.select(1, 2)));
  EXPECT_EQ(sd.at("column").storage_offset(), 2);
  for (const char* name : {"tail", "transposed", "column"}) EXPECT_TRUE(sd.at(name).is_alias_of(sd.at("base"))) << name;
}

TEST(TorchArchive, ContainersNumbersAndParametersReadAlikeInPickleProtocols2And5) {
  for (const char* name : {"containers_protocol2.pt", "containers_protocol5.pt"}) {
    SCOPED_TRACE(name);
    const PickleValue root = read_torch_file(fixture(name));
    EXPECT_TRUE(at::equal(*root.find("weight")->get_if<at::Tensor>(), at::arange(3, at::kFloat)));
    const auto& size = root.find("size")->get_if<PickleValue::Tuple>()->items;
    ASSERT_EQ(size.size(), 2u);
    EXPECT_EQ(*size[1].get_if<std::int64_t>(), 3);
    EXPECT_EQ(*root.find("device")->get_if<std::string>(), "cuda:1");
    EXPECT_EQ(root.find("blob")->get_if<PickleValue::Bytes>()->data, raw("\x00\xff" "ab"));
    EXPECT_NE(root.find("none")->get_if<PickleValue::None>(), nullptr);
    EXPECT_TRUE(*root.find("flag")->get_if<bool>());
    const auto& nested = root.find("nested")->get_if<PickleValue::List>()->items;
    ASSERT_EQ(nested.size(), 4u);
    EXPECT_EQ(*nested[1].get_if<PickleValue::Tuple>()->items[0].get_if<double>(), 2.5);
    EXPECT_EQ(*nested[1].get_if<PickleValue::Tuple>()->items[1].get_if<std::string>(), "x");
    EXPECT_EQ(*nested[2].get_if<std::int64_t>(), -70000);
    EXPECT_EQ(*nested[3].get_if<std::int64_t>(), std::int64_t{1} << 40);
    const auto& state = root.find("optimizer")->find("state")->get_if<PickleValue::Dict>()->items;
    ASSERT_EQ(state.size(), 1u);
    EXPECT_EQ(*state[0].first.get_if<std::int64_t>(), 0);
    EXPECT_EQ(state[0].second.find("step")->get_if<at::Tensor>()->item<float>(), 3.0f);
  }
}

TEST(TorchArchive, LegacyFormatLoadsWithTheDataParallelPrefixDropped) {
  const std::string path = fixture("legacy_medicalnet.pt");
  const PickleValue root = read_torch_file(path);
  ASSERT_NE(root.find("state_dict"), nullptr);
  expect_tiny_model(state_dict_of(root, path));
}

TEST(TorchArchive, HostileGlobalIsRefusedByNameAndNothingRuns) {
  const fs::path pwned = "/tmp/medsynth_torch_archive_pwned";
  fs::remove(pwned);
  const std::string reason = refusal(fixture("hostile_os_system.pt"));
  EXPECT_NE(reason.find("refuses to load global 'os.system'"), std::string::npos) << reason;
  EXPECT_FALSE(fs::exists(pwned));
  EXPECT_NE(refusal_of_pickle(k_proto2 + "c__builtin__\neval\n.").find("'__builtin__.eval'"), std::string::npos);
  const std::string stack_global = k_proto2 + "\x8c\x08" "builtins" "\x8c\x04" "eval" "\x93.";
  EXPECT_NE(refusal_of_pickle(stack_global).find("'builtins.eval'"), std::string::npos);
}

TEST(TorchArchive, TruncatedFilesAreRefusedNamingTheFile) {
  test::TempDir dir("torch_archive");
  for (const char* name : {"nv_generate.pt", "legacy_medicalnet.pt"}) {
    const std::string bytes = test::read_bytes(fixture(name));
    const std::string path = (dir / (std::string("cut_") + name)).string();
    test::write_bytes(path, bytes.substr(0, bytes.size() / 2));
    const std::string reason = refusal(path);
    EXPECT_NE(reason.find("truncated"), std::string::npos) << name << ": " << reason;
  }
}

TEST(TorchArchive, TensorsOutsideTheirStorageAreRefused) {
  EXPECT_NE(refusal(fixture("storage_too_small.pt")).find("reaches outside its storage of 4 elements"), std::string::npos);
  EXPECT_NE(refusal(fixture("negative_stride.pt")).find("negative stride"), std::string::npos);
}

TEST(TorchArchive, BigEndianArchiveIsRefused) {
  EXPECT_NE(refusal(fixture("big_endian.pt")).find("only little-endian"), std::string::npos);
}

TEST(TorchArchive, FilesThatAreNotTorchSaveFilesAreRefused) {
  test::TempDir dir("torch_archive");
  const std::string text = (dir / "notes.pt").string();
  test::write_bytes(text, "just some text\n");
  EXPECT_NE(refusal(text).find("not a torch.save file"), std::string::npos);
  EXPECT_NE(refusal((dir / "missing.pt").string()).find("cannot open"), std::string::npos);
  const std::string pickle_only = (dir / "plain.pkl").string();
  test::write_bytes(pickle_only, k_proto2 + "}.");
  EXPECT_NE(refusal(pickle_only).find("magic number"), std::string::npos);
}

TEST(TorchArchive, MalformedPicklesGiveClearErrors) {
  EXPECT_NE(refusal_of_pickle(k_proto2 + "}\xff.").find("unsupported pickle opcode 0xff (pickle opcode at byte 3)"),
            std::string::npos);
  EXPECT_NE(refusal_of_pickle(k_proto2 + raw("X\xff\xff\x00\x00" "abc")).find("truncated at byte"), std::string::npos);
  EXPECT_NE(refusal_of_pickle(k_proto2 + "h\x05.").find("memo entry 5 is not set"), std::string::npos);
  EXPECT_NE(refusal_of_pickle(k_proto2 + "s.").find("stack underflow"), std::string::npos);
  EXPECT_NE(refusal_of_pickle(k_proto2 + "\x8a\x09" + std::string(9, '\x01') + ".").find("wider than 64 bits"),
            std::string::npos);
  EXPECT_NE(refusal_of_pickle(k_proto2 + "r\xff\xff\xff\x7f").find("exceeds the limit"), std::string::npos);
}

TEST(TorchArchive, DeepNestingAndCyclesStopAtTheDepthLimit) {
  std::string deep = k_proto2;
  for (int i = 0; i < 2000; ++i) deep += "]";
  for (int i = 0; i < 1999; ++i) deep += "a";
  EXPECT_NE(refusal_of_pickle(deep + ".").find("nested deeper than 1000 levels"), std::string::npos);
  std::string marks = k_proto2 + std::string(2000, '(');
  EXPECT_NE(refusal_of_pickle(marks).find("nested deeper than 1000 levels"), std::string::npos);
  // A list that holds itself: ] BINPUT 0, BINGET 0, APPEND.
  EXPECT_NE(refusal_of_pickle(k_proto2 + raw("]q\x00h\x00" "a.")).find("nested deeper"), std::string::npos);
}

// Issue 37: memoised objects were copied per reference, so a 1 MiB string
// used 400 times built 400 MiB (a 1 MiB file reached 2.4 GB, an 8 GiB variant
// bad_alloc). The expansion is counted before it is built, and refused.
TEST(TorchArchive, ASharedStringUsedManyTimesIsCountedEachTimeAndRefused) {
  const std::uint32_t length = 1u << 20;
  std::string pickle = k_proto2 + "](X";
  pickle.append(reinterpret_cast<const char*>(&length), 4);
  pickle += std::string(length, 'a') + raw("q\x00");
  for (int i = 0; i < 399; ++i) pickle += raw("h\x00");
  pickle += "e.";
  const std::string why = refusal_of_pickle(pickle);
  EXPECT_NE(why.find("pickle expands to more than 256 MiB (a value it shares is counted each time it is used)"), std::string::npos) << why;
}

TEST(TorchArchive, AFileWithoutTensorsHasNoStateDict) {
  test::TempDir dir("torch_archive");
  const std::string path = zip_with_pickle(dir, k_proto2 + raw("}X\x05\x00\x00\x00" "epochK\x07s."));
  const PickleValue root = read_torch_file(path);
  EXPECT_EQ(scalar_extras_of(root).at("epoch"), 7.0);
  EXPECT_THROW(state_dict_of(root, path), DataError);
}

// Issue 50 item 5: a 20 KB .pth of views with a stride of 0 (torch's
// expand()) gave a 2.3 GiB perceptual network. A weight whose elements
// overlap is refused as the file is read, naming the file and the tensor,
// before anything reads its values; a transposed weight still loads.
TEST(TorchArchive, AnExpandedOrSelfOverlappingWeightIsRefusedNamingTheFileAndTheTensor) {
  test::TempDir dir("torch_archive");
  const auto save = [&](const std::string& name, const std::map<std::string, at::Tensor>& tensors) {
    c10::impl::GenericDict dict(c10::StringType::get(), c10::TensorType::get());
    for (const auto& [key, t] : tensors) dict.insert(key, t);
    const auto bytes = torch_save_bytes(dict);
    const std::string path = (dir / name).string();
    test::write_bytes(path, std::string(bytes.begin(), bytes.end()));
    return path;
  };
  const at::Tensor square = at::arange(16, at::kFloat).reshape({4, 4});
  const std::string fine = save("fine.pth", {{"a.weight", square.t()}, {"b.weight", at::ones({3}).expand({1, 3})}});
  EXPECT_EQ(state_dict_of(read_torch_file(fine), fine).at("a.weight").strides().vec(), (std::vector<int64_t>{1, 4}));
  const std::string expanded =
      save("expanded.pth",
           {{"conv.bias", at::ones({2})}, {"layer4.0.conv2.weight", at::ones({1}).expand({4096, 4096, 3, 3, 3})}});
  EXPECT_LT(fs::file_size(expanded), 4096u);
  const std::string overlapping =
      save("overlapping.pth", {{"fc.weight", at::arange(8, at::kFloat).as_strided({4, 4}, {1, 1})}});
  for (const auto& [path, tensor] :
       {std::pair{expanded, std::string("'layer4.0.conv2.weight'")}, {overlapping, std::string("'fc.weight'")}}) {
    try {
      state_dict_of(read_torch_file(path), path);
      ADD_FAILURE() << path << ": accepted";
    } catch (const DataError& e) {
      EXPECT_EQ(e.path(), path);
      EXPECT_NE(e.reason().find("weight " + tensor), std::string::npos) << e.what();
      EXPECT_NE(e.reason().find("a view whose elements overlap"), std::string::npos) << e.what();
    }
  }
}
