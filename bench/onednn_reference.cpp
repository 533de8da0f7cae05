// oneDNN anchors for tessel-bench-ops (oneDNN 2.6 from Debian, OpenMP threading).
#include "onednn_reference.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <oneapi/dnnl/dnnl.hpp>
#include <vector>
#include <unordered_map>

namespace tessel::bench {
namespace {

using tag = dnnl::memory::format_tag;
using dt = dnnl::memory::data_type;
using ops::reference::Floats;

dnnl::memory make_memory(const dnnl::memory::desc& md, const dnnl::engine& eng, const Floats& init) {
  dnnl::memory mem(md, eng);
  std::memcpy(mem.get_data_handle(), init.data(), init.size() * sizeof(float));
  return mem;
}

/// One primitive with its arguments; source and weights reordered into the layouts the
/// primitive chose once, outside the timed runs.
class PrimitiveAnchor : public Anchor {
 public:
  PrimitiveAnchor(dnnl::engine eng, dnnl::primitive prim, dnnl::memory src_user,
                  const dnnl::memory::desc& src_md, dnnl::memory weights_user,
                  const dnnl::memory::desc& weights_md, const dnnl::memory::desc& dst_md,
                  dnnl::memory::desc dst_plain, std::string label = "")
      : eng_(eng),
        strm_(eng),
        prim_(std::move(prim)),
        dst_plain_(std::move(dst_plain)),
        label_(std::move(label)) {
    dnnl::memory src(src_md, eng_);
    dnnl::reorder(src_user, src).execute(strm_, src_user, src);
    dnnl::memory weights(weights_md, eng_);
    dnnl::reorder(weights_user, weights).execute(strm_, weights_user, weights);
    dst_ = dnnl::memory(dst_md, eng_);
    args_ = {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, dst_}};
    strm_.wait();
  }
  void run() override {
    prim_.execute(strm_, args_);
    strm_.wait();
  }
  Floats output() override {
    dnnl::memory plain(dst_plain_, eng_);
    dnnl::reorder(dst_, plain).execute(strm_, dst_, plain);
    strm_.wait();
    const float* p = static_cast<const float*>(plain.get_data_handle());
    return Floats(p, p + dst_plain_.get_size() / sizeof(float));
  }
  std::string label() const override { return label_; }

 private:
  dnnl::engine eng_;
  dnnl::stream strm_;
  dnnl::primitive prim_;
  dnnl::memory dst_;
  dnnl::memory::desc dst_plain_;
  std::string label_;
  std::unordered_map<int, dnnl::memory> args_;
};

/// The median of 5 runs after 2 warm-up runs, in seconds.
double quick_median(Anchor& anchor) {
  std::vector<double> times;
  for (int i = 0; i < 7; ++i) {
    auto start = std::chrono::steady_clock::now();
    anchor.run();
    if (i >= 2)
      times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
  return times[times.size() / 2];
}

}  // namespace

void set_onednn_threads(int threads) { omp_set_num_threads(threads); }

std::unique_ptr<Anchor> onednn_matmul(int64_t m, int64_t n, int64_t k, const Floats& a,
                                      const Floats& b) {
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::memory::desc a_md({m, k}, dt::f32, tag::ab);
  dnnl::memory::desc b_plain({k, n}, dt::f32, tag::ab);
  dnnl::memory::desc b_any({k, n}, dt::f32, tag::any);
  dnnl::memory::desc c_md({m, n}, dt::f32, tag::ab);
  dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_md, b_any, c_md), eng);
  return std::make_unique<PrimitiveAnchor>(eng, dnnl::matmul(pd), make_memory(a_md, eng, a), a_md,
                                           make_memory(b_plain, eng, b), pd.weights_desc(),
                                           pd.dst_desc(), c_md);
}

std::unique_ptr<Anchor> onednn_conv2d(const ConvGeometry& g, const Floats& data,
                                      const Floats& weight) {
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  int64_t oh = (g.h + 2 * g.pad - (g.r - 1) * g.dilation - 1) / g.stride + 1;
  int64_t ow = (g.w + 2 * g.pad - (g.s - 1) * g.dilation - 1) / g.stride + 1;
  dnnl::memory::desc src_plain({g.n, g.c, g.h, g.w}, dt::f32, tag::nchw);
  dnnl::memory::desc src_any({g.n, g.c, g.h, g.w}, dt::f32, tag::any);
  // Grouped weights are [G][K/G][C/G][R][S] to oneDNN: the same bytes as OIHW [K][C/G][R][S].
  dnnl::memory::dims wei_dims = {g.k, g.c, g.r, g.s};
  tag wei_tag = tag::oihw;
  if (g.groups > 1) {
    wei_dims = {g.groups, g.k / g.groups, g.c / g.groups, g.r, g.s};
    wei_tag = tag::goihw;
  }
  dnnl::memory::desc wei_plain(wei_dims, dt::f32, wei_tag);
  dnnl::memory::desc wei_any(wei_dims, dt::f32, tag::any);
  dnnl::memory::desc dst_any({g.n, g.k, oh, ow}, dt::f32, tag::any);
  dnnl::memory::desc dst_plain({g.n, g.k, oh, ow}, dt::f32, tag::nchw);
  // oneDNN counts dilation from 0 (adjacent taps). Its direct algorithm, and its Winograd
  // one where it implements the shape: the faster of the two is the anchor.
  std::unique_ptr<Anchor> best;
  double best_seconds = 0;
  for (auto [algorithm, label] : {std::pair{dnnl::algorithm::convolution_direct, "direct"},
                                  std::pair{dnnl::algorithm::convolution_winograd, "winograd"}}) {
    std::unique_ptr<Anchor> anchor;
    try {
      dnnl::convolution_forward::desc desc(
          dnnl::prop_kind::forward_inference, algorithm, src_any, wei_any, dst_any,
          {g.stride, g.stride}, {g.dilation - 1, g.dilation - 1}, {g.pad, g.pad}, {g.pad, g.pad});
      dnnl::convolution_forward::primitive_desc pd(desc, eng);
      anchor = std::make_unique<PrimitiveAnchor>(
          eng, dnnl::convolution_forward(pd), make_memory(src_plain, eng, data), pd.src_desc(),
          make_memory(wei_plain, eng, weight), pd.weights_desc(), pd.dst_desc(), dst_plain, label);
    } catch (const dnnl::error&) {
      continue;  // not implemented for this shape or host
    }
    double seconds = quick_median(*anchor);
    if (!best || seconds < best_seconds) {
      best = std::move(anchor);
      best_seconds = seconds;
    }
  }
  return best;
}

}  // namespace tessel::bench
