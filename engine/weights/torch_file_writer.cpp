#include "weights/torch_file_writer.hpp"

#include <caffe2/serialize/inline_container.h>
#include <torch/csrc/jit/serialization/pickler.h>

#include <string>

namespace medsynth {

std::vector<char> torch_save_bytes(const c10::IValue& value) {
  std::vector<char> pickle;
  // No tensor table: tensors go in as storages (torch.save's layout); no
  // aggregate tags: torch.load(weights_only=True) reads the result.
  torch::jit::Pickler pickler([&pickle](const char* bytes, size_t n) { pickle.insert(pickle.end(), bytes, bytes + n); },
                              nullptr, nullptr, nullptr, nullptr, /*tag_aggregates=*/false);
  pickler.protocol();
  pickler.pushIValue(value);
  pickler.stop();

  std::vector<char> out;
  caffe2::serialize::PyTorchStreamWriter writer([&out](const void* data, size_t n) {
    const auto* bytes = static_cast<const char*>(data);
    out.insert(out.end(), bytes, bytes + n);
    return n;
  });
  // The storages' records are named by their index in the pickle's
  // persistent ids, as torch.save names them.
  std::size_t index = 0;
  for (const at::Tensor& tensor : pickler.tensorData()) {
    const auto data = torch::jit::getWriteableTensorData(tensor);
    writer.writeRecord("data/" + std::to_string(index++), data.data(), data.sizeInBytes());
  }
  writer.writeRecord("data.pkl", pickle.data(), pickle.size());
  writer.writeRecord("byteorder", "little", 6);
  writer.writeEndOfFile();
  return out;
}

}  // namespace medsynth
