// Writes files in torch.save's zip format (what torch.load reads, with its
// default weights_only=True): a pickle of plain dicts, lists, numbers,
// strings and tensors (as torch._utils._rebuild_tensor_v2 of a storage
// record), in an archive of data.pkl and data/<n> records. LibTorch's own
// pickle_save wraps every dict in torch.jit._pickle.restore_type_tag, which
// weights_only loading refuses; this pickles without those tags. Used by
// export-maisi (NV-Generate's .pt files).
#pragma once

#include <ATen/core/ivalue.h>

#include <vector>

namespace medsynth {

// The bytes of a torch.save file holding `value` (tensors are written from the CPU).
std::vector<char> torch_save_bytes(const c10::IValue& value);

}  // namespace medsynth
