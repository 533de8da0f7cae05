// oneDNN anchors for tessel-bench-ops (oneDNN 2.6 from Debian, OpenMP threading).
#include "onednn_reference.h"

#include <omp.h>

#include <cstring>
#include <oneapi/dnnl/dnnl.hpp>

#include "timing.h"

namespace tessel::bench {
namespace {

using tag = dnnl::memory::format_tag;
using dt = dnnl::memory::data_type;

dnnl::memory make_memory(const dnnl::memory::desc& md, const dnnl::engine& eng,
                         const ops::reference::Floats* init) {
  dnnl::memory mem(md, eng);
  if (init) std::memcpy(mem.get_data_handle(), init->data(), init->size() * sizeof(float));
  return mem;
}

ops::reference::Floats read_back(dnnl::memory mem, dnnl::stream& strm, const dnnl::engine& eng,
                             const dnnl::memory::desc& plain) {
  dnnl::memory out(plain, eng);
  dnnl::reorder(mem, out).execute(strm, mem, out);
  strm.wait();
  const float* p = static_cast<const float*>(out.get_data_handle());
  return ops::reference::Floats(p, p + plain.get_size() / sizeof(float));
}

}  // namespace

AnchorResult onednn_matmul(int64_t m, int64_t n, int64_t k, const ops::reference::Floats& a,
                           const ops::reference::Floats& b, int threads) {
  omp_set_num_threads(threads);
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream strm(eng);
  dnnl::memory::desc a_md({m, k}, dt::f32, tag::ab);
  dnnl::memory::desc b_plain({k, n}, dt::f32, tag::ab);
  dnnl::memory::desc b_any({k, n}, dt::f32, tag::any);
  dnnl::memory::desc c_md({m, n}, dt::f32, tag::ab);
  dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_md, b_any, c_md), eng);
  dnnl::memory a_mem = make_memory(a_md, eng, &a);
  dnnl::memory b_user = make_memory(b_plain, eng, &b);
  dnnl::memory b_mem(pd.weights_desc(), eng);
  dnnl::reorder(b_user, b_mem).execute(strm, b_user, b_mem);
  dnnl::memory c_mem(c_md, eng);
  dnnl::matmul prim(pd);
  auto run = [&] {
    prim.execute(strm, {{DNNL_ARG_SRC, a_mem}, {DNNL_ARG_WEIGHTS, b_mem}, {DNNL_ARG_DST, c_mem}});
    strm.wait();
  };
  double t = median_seconds(run);
  return {t, read_back(c_mem, strm, eng, c_md)};
}

AnchorResult onednn_conv2d(int64_t n, int64_t c, int64_t h, int64_t w, int64_t k, int64_t r,
                           int64_t s, int64_t stride, int64_t pad, const ops::reference::Floats& data,
                           const ops::reference::Floats& weight, int threads) {
  omp_set_num_threads(threads);
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream strm(eng);
  int64_t oh = (h + 2 * pad - r) / stride + 1;
  int64_t ow = (w + 2 * pad - s) / stride + 1;
  dnnl::memory::desc src_md({n, c, h, w}, dt::f32, tag::nchw);
  dnnl::memory::desc wei_plain({k, c, r, s}, dt::f32, tag::oihw);
  dnnl::memory::desc wei_any({k, c, r, s}, dt::f32, tag::any);
  dnnl::memory::desc dst_any({n, k, oh, ow}, dt::f32, tag::any);
  dnnl::memory::desc dst_plain({n, k, oh, ow}, dt::f32, tag::nchw);
  dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference,
                                       dnnl::algorithm::convolution_direct, src_md, wei_any,
                                       dst_any, {stride, stride}, {pad, pad}, {pad, pad});
  dnnl::convolution_forward::primitive_desc pd(desc, eng);
  dnnl::memory src_mem = make_memory(src_md, eng, &data);
  dnnl::memory wei_user = make_memory(wei_plain, eng, &weight);
  dnnl::memory wei_mem(pd.weights_desc(), eng);
  dnnl::reorder(wei_user, wei_mem).execute(strm, wei_user, wei_mem);
  dnnl::memory dst_mem(pd.dst_desc(), eng);
  dnnl::convolution_forward prim(pd);
  auto run = [&] {
    prim.execute(strm, {{DNNL_ARG_SRC, src_mem}, {DNNL_ARG_WEIGHTS, wei_mem}, {DNNL_ARG_DST, dst_mem}});
    strm.wait();
  };
  double t = median_seconds(run);
  return {t, read_back(dst_mem, strm, eng, dst_plain)};
}

}  // namespace tessel::bench
