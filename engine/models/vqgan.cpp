#include "models/vqgan.hpp"

#include <ATen/ATen.h>

namespace medsynth {

VqganImpl::VqganImpl(AutoencoderKLOptions coder, const VectorQuantizerOptions& quantizer_options) : coder_(std::move(coder)) {
  coder_.latent_channels = quantizer_options.embedding_dim;
  coder_.validate();
  const auto d = quantizer_options.embedding_dim;
  encoder = register_module("encoder", AutoencoderEncoder(coder_));
  pre_quant_conv = register_module("pre_quant_conv", conv1x1(d, d));
  quantizer = register_module("quantizer", VectorQuantizer(quantizer_options));
  post_quant_conv = register_module("post_quant_conv", conv1x1(d, d));
  decoder = register_module("decoder", AutoencoderDecoder(coder_));
}

VqganOutput VqganImpl::forward(const at::Tensor& x) {
  VqganOutput out;
  out.quantizer = quantizer->forward(pre_quant_conv->forward(encoder->forward(x)));
  out.reconstruction = decoder->forward(post_quant_conv->forward(out.quantizer.quantized));
  return out;
}

at::Tensor VqganImpl::reconstruct(const at::Tensor& x) { return forward(x).reconstruction; }

at::Tensor VqganImpl::encode_codes(const at::Tensor& x) { return pre_quant_conv->forward(encoder->forward(x)); }

at::Tensor VqganImpl::decode_codes(const at::Tensor& z) {
  return decoder->forward(post_quant_conv->forward(quantizer->forward(z).quantized));
}

}  // namespace medsynth
